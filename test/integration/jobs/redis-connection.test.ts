// connectRedis logs losing Redis at warn, with the reason, once per outage; the failed reconnects that
// follow at debug; the return at info. A real redis-server of our own, stopped and started by PID.
import type { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { connectRedis } from "../../../src/jobs/redis-connection.js";
import { startOwnRedis, type OwnRedis } from "../queue/redis-server.js";
import { waitFor } from "../queue/helpers.js";
import { captureLogs } from "../../unit/logging/log-lines.js";

const PASSWORD = "connection-test-password";

let client: Redis | undefined;
let own: OwnRedis | undefined;
afterEach(async () => {
  client?.disconnect();
  client = undefined;
  await own?.stop();
  own = undefined;
});

describe("connectRedis", () => {
  it("an unreachable Redis: one warning with the reason and the host, no password; the retries at debug", async () => {
    const { logger, lines, records } = captureLogs({ REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:1` });
    client = connectRedis(`redis://:${PASSWORD}@127.0.0.1:1`, logger, "queue", { maxRetriesPerRequest: 1 });
    // Three failed attempts: the first and two reconnects (100, 200, 400 ms apart).
    await waitFor(() => records().filter((r) => r.msg?.startsWith("queue: ")).length >= 3, 10_000, "three connection errors");

    const ours = records().filter((r) => r.msg?.startsWith("queue: "));
    const warnings = ours.filter((r) => r.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ redis: "127.0.0.1:1", err: expect.stringMatching(/ECONNREFUSED/) });
    expect(warnings[0]!.msg).toMatch(/^queue: Redis is unavailable \(.*ECONNREFUSED.*\); reconnecting$/);
    expect(ours.slice(1).every((r) => r.level === 20)).toBe(true);
    expect(lines.join("")).not.toContain(PASSWORD);
  });

  it("an outage of a running Redis: a warning when it goes, info when it is back, a warning again at the next outage", async () => {
    own = await startOwnRedis();
    const { logger, records } = captureLogs();
    client = connectRedis(own.url, logger, "approvals", { maxRetriesPerRequest: null });
    await waitFor(() => client!.status === "ready", 10_000, "the first connection");
    expect(records().filter((r) => r.level >= 30)).toEqual([]);

    const levels = (): number[] =>
      records()
        .filter((r) => r.level >= 30)
        .map((r) => r.level);
    for (let outage = 1; outage <= 2; outage++) {
      await own.stop();
      await waitFor(() => levels().length === 2 * outage - 1, 10_000, `the warning of outage ${outage}`);
      await own.start();
      await waitFor(() => levels().length === 2 * outage, 10_000, `the return after outage ${outage}`);
    }
    expect(levels()).toEqual([40, 30, 40, 30]);
    const [lost, back] = records().filter((r) => r.level >= 30);
    expect(lost!.msg).toMatch(/^approvals: Redis is unavailable \(.+\); reconnecting$/);
    expect(back).toMatchObject({ msg: "approvals: Redis connection restored", redis: `127.0.0.1:${own.port}` });
  });
});
