// `tackle doctor` prints every check; none of its lines may carry a credential of the process, REDIS_URL's
// password included, whether Redis answers or not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctor, type Check } from "../../../src/main/doctor.js";
import { testRedis } from "../queue/redis-server.js";

const PASSWORD = "doctor-redis-password-0123";
const SECRETS = { ANTHROPIC_API_KEY: "sk-ant-doctor-test-key-0123456789", WEBHOOK_SECRET: "doctor-webhook-secret", PRIVATE_KEY: "doctor-private-key-text" };

/** The lines `tackle doctor` prints for these checks. */
const printed = (checks: Check[]): string[] =>
  checks.flatMap((c) => [`${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail}`, ...(c.fix ? [`     fix: ${c.fix}`] : [])]);

let redis: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(() => redis?.stop());

describe("tackle doctor", () => {
  it("an unreachable Redis: the URL shown with its password masked, and the reason", async () => {
    const checks = await runDoctor({ PATH: process.env.PATH, ...SECRETS, APP_ID: "1", REDIS_URL: `redis://user:${PASSWORD}@127.0.0.1:1/0` });
    const check = checks.find((c) => c.name === "redis")!;
    expect(check.ok).toBe(false);
    expect(check.detail).toMatch(/^redis:\/\/user:\[REDACTED\]@127\.0\.0\.1:1\/0: error: .*ECONNREFUSED/);
    const lines = printed(checks).join("\n");
    for (const secret of [PASSWORD, ...Object.values(SECRETS)]) expect(lines).not.toContain(secret);
  });

  it("a Redis that answers: the URL shown with its password masked (user info and query)", async () => {
    const url = new URL(redis.url);
    url.password = PASSWORD;
    const checks = await runDoctor({ PATH: process.env.PATH, ...SECRETS, REDIS_URL: url.href });
    const check = checks.find((c) => c.name === "redis")!;
    expect(check).toMatchObject({ ok: true, detail: `redis://:[REDACTED]@${url.host} answers PING` });
    expect(printed(checks).join("\n")).not.toContain(PASSWORD);
  });
});
