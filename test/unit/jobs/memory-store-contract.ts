// What every memory backend does behind createMemoryStore: run against the files under TACKLE_HOME
// (test/unit/workspace/file-memory-backend.test.ts) and Redis (test/integration/jobs/redis-memory-store.test.ts).
import { describe, expect, it } from "vitest";
import type { Memory } from "../../../src/agent/ports.js";
import { isTackleError, type TackleError } from "../../../src/errors/index.js";
import type { MemoryStore } from "../../../src/jobs/index.js";
import type { MemoryWrite } from "../../../src/jobs/memory-store.js";
import { maskedMemory } from "../../fakes/masked.js";

/** Two stores over the same memory, as two processes (or two machines) would have. */
export interface MemoryStorePair {
  stores: [MemoryStore, MemoryStore];
  close(): Promise<void>;
}

const REPO = "github.com/1296269";
const OTHER = "github.com/1300192";

export function memory(name: string, overrides: Partial<Memory> = {}): MemoryWrite {
  return maskedMemory({
    name,
    description: `what ${name} holds`,
    content: `the content of ${name}`,
    jobId: "job-1",
    actor: "alice",
    updatedAt: "2025-01-02T03:04:05.000Z",
    ...overrides,
  });
}

async function rejection(promise: Promise<unknown>): Promise<TackleError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isTackleError(error)) throw new Error(`expected a TackleError, got ${String(error)}`);
  return error;
}

async function fill(store: MemoryStore, count: number, repo = REPO): Promise<void> {
  for (let i = 0; i < count; i++) await store.put(repo, memory(`m-${String(i).padStart(3, "0")}`));
}

export function memoryStoreContract(label: string, open: () => Promise<MemoryStorePair>): void {
  const withPair = async (test: (pair: MemoryStorePair) => Promise<void>): Promise<void> => {
    const pair = await open();
    try {
      await test(pair);
    } finally {
      await pair.close();
    }
  };

  describe(`memory store contract: ${label}`, () => {
    it("stores, reads, updates, lists by name without content, and deletes", () =>
      withPair(async ({ stores: [a, b] }) => {
        expect(await a.list(REPO)).toEqual([]);
        expect(await a.get(REPO, "build")).toBeNull();
        expect(await a.put(REPO, memory("zeta"))).toBe("created");
        expect(await a.put(REPO, memory("build", { description: "  how to build  " }))).toBe("created");
        // The other instance sees it: the store is shared, not this object's.
        expect(await b.get(REPO, "build")).toEqual(memory("build", { description: "how to build" }));
        expect(await b.put(REPO, memory("build", { content: "npm run build", jobId: "job-2", actor: "bob" }))).toBe("updated");
        expect(await a.list(REPO)).toEqual([
          { name: "build", description: "what build holds", jobId: "job-2", actor: "bob", updatedAt: "2025-01-02T03:04:05.000Z" },
          { name: "zeta", description: "what zeta holds", jobId: "job-1", actor: "alice", updatedAt: "2025-01-02T03:04:05.000Z" },
        ]);
        expect((await a.get(REPO, "build"))?.content).toBe("npm run build");
        expect(await b.delete(REPO, "build")).toBe(true);
        expect(await a.delete(REPO, "build")).toBe(false);
        expect(await a.get(REPO, "build")).toBeNull();
        expect((await a.list(REPO)).map((m) => m.name)).toEqual(["zeta"]);
      }));

    it("keys by host/id, the host without regard to case, and keeps repositories and hosts apart", () =>
      withPair(async ({ stores: [a] }) => {
        await a.put("GitHub.com/1296269", memory("shared"));
        expect((await a.get(REPO, "shared"))?.name).toBe("shared");
        expect(await a.list(OTHER)).toEqual([]);
        expect(await a.list("ghe.example.com:8443/1296269")).toEqual([]);
        await a.put("ghe.example.com:8443/1296269", memory("on-ghe"));
        expect((await a.list("ghe.example.com:8443/1296269")).map((m) => m.name)).toEqual(["on-ghe"]);
        expect((await a.list(REPO)).map((m) => m.name)).toEqual(["shared"]);
      }));

    it("refuses repository keys that are not host/id or could leave their directory, names among them", () =>
      withPair(async ({ stores: [a] }) => {
        for (const key of [
          "github.com/octo/widgets",
          "github.com/..",
          "../1296269",
          "github.com",
          "github.com/0",
          "github.com/12/x",
          "github..com/12",
          "github.com/1e3",
        ]) {
          const error = await rejection(a.put(key, memory("x")));
          expect(error.code, key).toBe("invalid_input");
          expect(error.message).toContain("host/id");
        }
        await expect(a.list("github.com/.")).rejects.toMatchObject({ code: "invalid_input" });
      }));

    it("finds a repository's id by the name a job last noted, without regard to case, per host", () =>
      withPair(async ({ stores: [a, b] }) => {
        expect(await a.idOf("github.com", "octo/widgets")).toBeNull();
        await a.recordName("github.com", "Octo/Widgets", 1296269);
        expect(await b.idOf("GitHub.com", "octo/widgets")).toBe(1296269);
        expect(await b.idOf("ghe.example.com:8443", "octo/widgets")).toBeNull();
        // Deleted and created again under the name: the newer repository's id wins.
        await b.recordName("github.com", "octo/widgets", 1300192);
        expect(await a.idOf("github.com", "octo/widgets")).toBe(1300192);
        await expect(a.recordName("github.com", "octo/../x", 1)).rejects.toMatchObject({ code: "invalid_input" });
        await expect(a.idOf("github..com", "octo/widgets")).rejects.toMatchObject({ code: "invalid_input" });
      }));

    it("refuses bad names, descriptions and sizes with messages that say what to do", () =>
      withPair(async ({ stores: [a] }) => {
        for (const name of ["Build", "build commands", "", "x".repeat(65), "../x", "über"]) {
          const error = await rejection(a.put(REPO, memory(name)));
          expect(error.code, name).toBe("invalid_input");
          expect(error.message).toContain("lowercase letters, digits and dashes");
        }
        expect(await a.put(REPO, memory("x".repeat(64)))).toBe("created");
        await expect(a.get(REPO, "Bad Name")).rejects.toMatchObject({ code: "invalid_input" });
        await expect(a.delete(REPO, "Bad Name")).rejects.toMatchObject({ code: "invalid_input" });

        expect((await rejection(a.put(REPO, memory("d", { description: "   " })))).message).toContain("needs a description");
        expect((await rejection(a.put(REPO, memory("d", { description: "one\ntwo" })))).message).toContain("one line");
        const long = await rejection(a.put(REPO, memory("d", { description: "x".repeat(201) })));
        expect(long.message).toContain("201 characters; the limit is 200");
        expect(await a.put(REPO, memory("d", { description: "x".repeat(200) }))).toBe("created");

        // 4096 bytes of UTF-8, not characters: "é" is two bytes.
        expect(await a.put(REPO, memory("big", { content: "é".repeat(2048) }))).toBe("created");
        const tooBig = await rejection(a.put(REPO, memory("big", { content: `${"é".repeat(2048)}x` })));
        expect(tooBig.code).toBe("invalid_input");
        expect(tooBig.message).toContain("4097 bytes (UTF-8); the limit is 4096");
        expect((await a.get(REPO, "big"))?.content).toBe("é".repeat(2048));
        expect((await rejection(a.put(REPO, memory("empty", { content: "" })))).message).toContain("no content");
      }));

    it("holds at most 100 memories per repository; updates and other repositories still go through", () =>
      withPair(async ({ stores: [a, b] }) => {
        await fill(a, 100);
        const full = await rejection(b.put(REPO, memory("one-more")));
        expect(full.code).toBe("memory_full");
        expect(full.retryable).toBe(false);
        expect(full.message).toContain("already has 100 memories");
        expect(full.message).toContain("delete one");
        expect(await b.get(REPO, "one-more")).toBeNull();
        expect(await b.put(REPO, memory("m-007", { content: "changed" }))).toBe("updated");
        expect(await b.put(OTHER, memory("one-more"))).toBe("created");
        expect(await a.delete(REPO, "m-000")).toBe(true);
        expect(await b.put(REPO, memory("one-more"))).toBe("created");
        expect(await a.list(REPO)).toHaveLength(100);
      }));

    it("stores exactly one of several new memories written at once past the 99th, from two instances", () =>
      withPair(async ({ stores: [a, b] }) => {
        await fill(a, 99);
        const names = ["race-a", "race-b", "race-c", "race-d", "race-e", "race-f"];
        const outcomes = await Promise.allSettled(names.map((name, i) => (i % 2 === 0 ? a : b).put(REPO, memory(name))));
        const created = outcomes.filter((o) => o.status === "fulfilled");
        expect(created).toHaveLength(1);
        expect(created[0]).toMatchObject({ value: "created" });
        for (const o of outcomes) if (o.status === "rejected") expect(o.reason).toMatchObject({ code: "memory_full" });
        const listed = await b.list(REPO);
        expect(listed).toHaveLength(100);
        expect(listed.filter((m) => m.name.startsWith("race-"))).toHaveLength(1);
      }));
  });
}
