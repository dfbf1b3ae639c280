import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { runMemoryCommand } from "../../../src/main/memory-command.js";
import { memory, memoryStoreContract } from "../../unit/jobs/memory-store-contract.js";
import { deleteKeys, startOwnRedis, testRedis } from "../queue/redis-server.js";

let redis: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** Two stores on their own connections, as two workers would be, under a prefix of their own. */
function pair(prefix = `tackle-test-${randomUUID()}`) {
  const open = () => createMemoryStore({ redisUrl: redis.url, home: "/nonexistent", prefix, logger: silentLogger });
  const stores = [open(), open()] as const;
  return {
    prefix,
    stores: [...stores] as [ReturnType<typeof open>, ReturnType<typeof open>],
    async close() {
      for (const store of stores) await store.close();
      await deleteKeys(redis.url, prefix);
    },
  };
}

memoryStoreContract("redis, two connections", async () => pair());

describe("redis memory store", () => {
  it("keeps one hash per repository, <prefix>:memory:<host/id>, a field per memory, without expiry, and names beside", async () => {
    const p = pair();
    const raw = new Redis(redis.url);
    try {
      await p.stores[0].put("GitHub.com/1296269", memory("build"));
      await p.stores[0].recordName("github.com", "Octo/Widgets", 1296269);
      expect(await raw.hget(`${p.prefix}:memory-names:github.com`, "octo/widgets")).toBe("1296269");
      const key = `${p.prefix}:memory:github.com/1296269`;
      expect(await raw.type(key)).toBe("hash");
      expect(await raw.pttl(key)).toBe(-1);
      expect(JSON.parse((await raw.hget(key, "build")) ?? "null")).toEqual({
        description: "what build holds",
        content: "the content of build",
        jobId: "job-1",
        actor: "alice",
        updatedAt: "2025-01-02T03:04:05.000Z",
      });
      // A field written by hand that is not a memory reads as absent instead of failing the index.
      await raw.hset(key, "odd", "not json");
      expect((await p.stores[1].list("github.com/1296269")).map((m) => m.name)).toEqual(["build"]);
      expect(await p.stores[1].get("github.com/1296269", "odd")).toBeNull();
    } finally {
      raw.disconnect();
      await p.close();
    }
  });

  it("says Redis is unavailable, as a retryable error, when it does not answer", async () => {
    const own = await startOwnRedis();
    const store = createMemoryStore({ redisUrl: own.url, home: "/nonexistent", logger: silentLogger });
    try {
      await own.stop();
      await expect(store.put("github.com/1296269", memory("build"))).rejects.toMatchObject({
        code: "queue_unavailable",
        retryable: true,
        message: expect.stringContaining("Redis is unavailable; could not write a memory") as unknown,
      });
    } finally {
      await store.close();
    }
  });

  it("`tackle memory` reads and deletes the memory in Redis when REDIS_URL is set", async () => {
    // The command uses the queue's own prefix, "tackle"; a repository of this run's own keeps it apart.
    const owner = `memory-cli-${randomUUID()}`;
    // Memory is keyed by the repository's id; the command finds it by the name a job noted.
    const id = 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
    const repoKey = `github.com/${id}`;
    const store = createMemoryStore({ redisUrl: redis.url, home: "/nonexistent", logger: silentLogger });
    const lines: string[] = [];
    const output = { out: (text: string) => lines.push(text), err: (text: string) => lines.push(text) };
    const env = { REDIS_URL: redis.url, TACKLE_HOME: "/nonexistent" };
    try {
      await store.put(repoKey, memory("build", { content: "make all" }));
      await store.recordName("github.com", `${owner}/widgets`, id);
      expect(await runMemoryCommand(["list", "--repo", `${owner}/widgets`], env, output)).toBe(0);
      expect(lines.join("\n")).toContain("in Redis at");
      expect(lines.join("\n")).toMatch(/build\s+what build holds/);
      expect(await runMemoryCommand(["show", "build", "--repo", `${owner}/widgets`], env, output)).toBe(0);
      expect(lines.at(-1)).toBe("make all");
      expect(await runMemoryCommand(["delete", "build", "--repo", `${owner}/widgets`], env, output)).toBe(0);
      expect(await store.get(repoKey, "build")).toBeNull();
    } finally {
      await store.close();
      const raw = new Redis(redis.url);
      await raw.del(`tackle:memory:${repoKey}`);
      await raw.hdel("tackle:memory-names:github.com", `${owner}/widgets`);
      raw.disconnect();
    }
  });
});
