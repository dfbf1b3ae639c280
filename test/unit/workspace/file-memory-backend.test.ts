import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStore } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { createFileMemoryBackend } from "../../../src/workspace/file-memory-backend.js";
import { memory, memoryStoreContract } from "../jobs/memory-store-contract.js";

const homes: string[] = [];
afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

async function tempHome(): Promise<string> {
  const home = await mkdtemp(path.join(tmpdir(), "tackle-memory-"));
  homes.push(home);
  return home;
}

// Two stores over one TACKLE_HOME: each write takes its own flock(1) lock, as two processes would.
memoryStoreContract("files under TACKLE_HOME", async () => {
  const home = await tempHome();
  const open = () => createMemoryStore({ home, logger: silentLogger });
  const stores = [open(), open()] as const;
  return { stores: [...stores], close: async () => undefined };
});

describe("file memory backend", () => {
  const REPO = "github.com/1296269";

  it("keeps one JSON file per repository at <home>/memory/<host>/<id>.json, readable by its owner only", async () => {
    const home = await tempHome();
    const store = createMemoryStore({ home, logger: silentLogger });
    await store.put("GHE.example.com:8443/42", memory("build"));
    const file = path.join(home, "memory", "ghe.example.com:8443", "42.json");
    const saved = JSON.parse(await readFile(file, "utf8")) as unknown;
    expect(saved).toEqual({
      version: 1,
      memories: {
        build: { description: "what build holds", content: "the content of build", jobId: "job-1", actor: "alice", updatedAt: "2025-01-02T03:04:05.000Z" },
      },
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // The write landed by rename: no temp file is left beside it.
    expect((await readdir(path.dirname(file))).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("refuses a key that would leave its directory even when called without the checked store", async () => {
    const home = await tempHome();
    const backend = createFileMemoryBackend({ home: path.join(home, "inner") });
    for (const key of ["github.com/../../escape", "../../x/y", "github.com/octo/../../../z", "github.com/../1", "../1"]) {
      await expect(backend.put(key, memory("x"), 100)).rejects.toMatchObject({ code: "invalid_input" });
    }
    expect(await readdir(home)).toEqual([]);
  });

  it("never overwrites a memory file it cannot read, and says which file to fix", async () => {
    const home = await tempHome();
    const file = path.join(home, "memory", "github.com", "1296269.json");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, "{ not json");
    const store = createMemoryStore({ home, logger: silentLogger });
    await expect(store.put(REPO, memory("build"))).rejects.toMatchObject({ code: "workspace", message: expect.stringContaining(file) as unknown });
    await expect(store.list(REPO)).rejects.toThrow("fix or remove it");
    expect(await readFile(file, "utf8")).toBe("{ not json");
  });

  it("reads an entry it does not understand as absent, but keeps it (and counts it) when writing others", async () => {
    const home = await tempHome();
    const file = path.join(home, "memory", "github.com", "1296269.json");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ version: 1, memories: { odd: { description: 7 } } }));
    const store = createMemoryStore({ home, logger: silentLogger });
    expect(await store.list(REPO)).toEqual([]);
    expect(await store.get(REPO, "odd")).toBeNull();
    await store.put(REPO, memory("build"));
    const saved = JSON.parse(await readFile(file, "utf8")) as { memories: Record<string, unknown> };
    expect(Object.keys(saved.memories).sort()).toEqual(["build", "odd"]);
    expect(await store.put(REPO, memory("odd"))).toBe("updated");
    expect((await store.get(REPO, "odd"))?.content).toBe("the content of odd");
  });
});
