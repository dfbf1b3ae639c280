import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStore } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { createRedactor, redactKnownTokens } from "../../../src/util/redact.js";
import { createMemoryPort } from "../../../src/worker/memory-port.js";

const SECRET = "hunter2-the-webhook-secret";
const TOKEN = `ghs_${"a1B2".repeat(9)}`;
const REPO = "github.com/1296269";
const T0 = Date.parse("2025-03-04T05:06:07.000Z");

const homes: string[] = [];
afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

async function setUp(options: { jobId?: string; actor?: string; now?: () => number } = {}) {
  const home = await mkdtemp(path.join(tmpdir(), "tackle-memory-port-"));
  homes.push(home);
  const store = createMemoryStore({ home, logger: silentLogger });
  const port = createMemoryPort({
    store,
    repoKey: REPO,
    jobId: options.jobId ?? "job-7",
    actor: options.actor ?? "alice",
    redact: createRedactor([SECRET]),
    clock: options.now ?? (() => T0),
  });
  return { home, store, port };
}

describe("createMemoryPort", () => {
  it("redacts description and content before they are stored, and records the job, actor and time", async () => {
    const { home, port } = await setUp();
    const outcome = await port.write({
      name: "deploy",
      description: `deploy with ${SECRET}`,
      content: `export GITHUB_TOKEN=${TOKEN}\nthen run make deploy (secret ${SECRET})`,
    });
    expect(outcome).toBe("created");
    const stored = await readFile(path.join(home, "memory", "github.com", "1296269.json"), "utf8");
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toContain(TOKEN);
    const read = await port.read("deploy");
    expect(read).toEqual({
      name: "deploy",
      description: "deploy with [REDACTED]",
      content: "export GITHUB_TOKEN=[REDACTED:github-token]\nthen run make deploy (secret [REDACTED])",
      jobId: "job-7",
      actor: "alice",
      updatedAt: "2025-03-04T05:06:07.000Z",
    });
  });

  it("refuses a name the job's redactor would mask, storing nothing", async () => {
    const secretName = "abc123deadbeef";
    const home = await mkdtemp(path.join(tmpdir(), "tackle-memory-port-"));
    homes.push(home);
    const store = createMemoryStore({ home, logger: silentLogger });
    const port = createMemoryPort({ store, repoKey: REPO, jobId: "j", actor: "a", redact: createRedactor([secretName]), clock: () => T0 });
    await expect(port.write({ name: secretName, description: "d", content: "c" })).rejects.toMatchObject({ code: "invalid_input" });
    expect(await port.index()).toEqual([]);
  });

  it("updates with the later job's provenance, and lists the index by name without contents", async () => {
    const first = await setUp();
    await first.port.write({ name: "tests", description: "how to test", content: "npm test" });
    await first.port.write({ name: "build", description: "how to build", content: "npm run build" });
    const later = createMemoryPort({ store: first.store, repoKey: REPO, jobId: "job-9", actor: "bob", redact: redactKnownTokens, clock: () => T0 + 60_000 });
    expect(await later.write({ name: "tests", description: "how to test, fast", content: "npx vitest run" })).toBe("updated");
    expect(await later.index()).toEqual([
      { name: "build", description: "how to build", jobId: "job-7", actor: "alice", updatedAt: "2025-03-04T05:06:07.000Z" },
      { name: "tests", description: "how to test, fast", jobId: "job-9", actor: "bob", updatedAt: "2025-03-04T05:07:07.000Z" },
    ]);
  });

  it("deletes on empty (or blank) content: deleted when there was one, absent when not", async () => {
    const { port } = await setUp();
    await port.write({ name: "stale", description: "old note", content: "x" });
    await port.write({ name: "blank", description: "another", content: "y" });
    expect(await port.write({ name: "stale", description: "", content: "" })).toBe("deleted");
    expect(await port.write({ name: "stale", description: "", content: "" })).toBe("absent");
    expect(await port.write({ name: "blank", description: "another", content: " \n\t" })).toBe("deleted");
    expect(await port.read("stale")).toBeNull();
    expect(await port.index()).toEqual([]);
  });

  it("passes on the store's refusals, with their codes, for the model to read", async () => {
    const { port } = await setUp();
    await expect(port.write({ name: "Not Valid", description: "d", content: "c" })).rejects.toMatchObject({ code: "invalid_input" });
    await expect(port.write({ name: "Not Valid", description: "d", content: "" })).rejects.toMatchObject({ code: "invalid_input" });
    await expect(port.read("Not Valid")).rejects.toMatchObject({ code: "invalid_input" });
    await expect(port.write({ name: "big", description: "d", content: "x".repeat(4097) })).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining("the limit is 4096") as unknown,
    });
    for (let i = 0; i < 100; i++) await port.write({ name: `m-${i}`, description: "d", content: "c" });
    await expect(port.write({ name: "one-more", description: "d", content: "c" })).rejects.toMatchObject({ code: "memory_full" });
  });
});
