// The Redis job store counts an artifact's content against the job's and the total cap, but not what
// else it stores for it: its metadata (name, a 200-character description, …) in `arts:<job>` and a key
// of its own. An empty file costs nothing against the caps, and UploadArtifact takes empty files, so an
// agent uploading one again and again added keys to the queue's Redis (which runs with `noeviction`)
// without ever reaching a cap: the store's promise never to fill it did not hold.
//
// Fix: an artifact costs its content, its metadata and a fixed amount for its keys, against both caps.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisJobStore } from "../../src/jobs/redis-job-store.js";
import { silentLogger } from "../../src/logging/logger.js";
import { deleteKeys, testRedis } from "../integration/queue/redis-server.js";
import { masked, maskedBytes } from "../fakes/masked.js";

let redis: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** What Redis holds for the store's artifacts, by its own measure. */
async function artifactBytes(url: string, prefix: string): Promise<number> {
  const client = new Redis(url);
  try {
    let total = 0;
    for (const pattern of [`${prefix}:jobstore:art:*`, `${prefix}:jobstore:arts:*`]) {
      const keys = await client.keys(pattern);
      for (const key of keys) total += Number((await client.memory("USAGE", key)) ?? 0);
    }
    return total;
  } finally {
    client.disconnect();
  }
}

describe("empty artifacts in the Redis job store", () => {
  it("count against the total cap: what Redis holds for them stays near it", async () => {
    const prefix = `tackle-test-${randomUUID()}`;
    const maxTotalBytes = 64 * 1024;
    const store = createRedisJobStore({ redisUrl: redis.url, prefix, logger: silentLogger, limits: { maxTotalBytes } });
    try {
      await store.record({
        jobId: "job-1",
        repo: "octo/widgets",
        number: 1,
        isPullRequest: false,
        trigger: "issue_assigned",
        actor: "alice",
        enqueuedAt: new Date().toISOString(),
      });
      let refused = 0;
      for (let i = 0; i < 1500 && refused === 0; i++) {
        await store
          .putArtifact("job-1", {
            name: masked(`empty-${i}.txt`),
            description: masked("x".repeat(200)),
            contentType: "text/plain",
            content: maskedBytes(Buffer.alloc(0)),
          })
          .catch(() => refused++);
      }
      expect(refused).toBe(1);
      expect(await artifactBytes(redis.url, prefix)).toBeLessThan(2 * maxTotalBytes);
    } finally {
      await store.close();
      await deleteKeys(redis.url, prefix);
    }
  });
});
