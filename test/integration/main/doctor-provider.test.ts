// `tackle doctor` with TACKLE_PROVIDER=openai asks the server itself (GET /models); no line carries the key.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { checkModelProvider } from "../../../src/main/check-model-provider.js";
import { runDoctor, type Check } from "../../../src/main/doctor.js";
import { startFakeOpenAI, type FakeOpenAI } from "../../fakes/index.js";

const printed = (checks: Check[]): string =>
  checks.flatMap((c) => [`${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail}`, ...(c.fix ? [`     fix: ${c.fix}`] : [])]).join("\n");

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("tackle doctor: the openai provider", () => {
  it("a server that answers with the key and lists TACKLE_MODEL passes, and no line shows the key", async () => {
    fake = await startFakeOpenAI([], { apiKey: "sk-openai-doctor-secret-0123", models: ["fake-coder", "other"] });
    const checks = await runDoctor({ PATH: process.env.PATH, ...fake.env(), TACKLE_MODEL: "fake-coder" });
    const check = checks.find((c) => c.name === "model server");
    expect(check).toEqual({ name: "model server", ok: true, detail: `${fake.url} answers with OPENAI_API_KEY and serves fake-coder` });
    expect(checks.find((c) => c.name === "model key")).toBeUndefined();
    expect(printed(checks)).not.toContain("sk-openai-doctor-secret-0123");
    expect(fake.requests.map((r) => [r.method, r.path, r.status])).toEqual([["GET", "/v1/models", 200]]);
  });

  it("a key the server refuses, a model it does not serve, an unreachable server, and unset settings each fail with a fix", async () => {
    fake = await startFakeOpenAI([], { apiKey: "sk-right", models: ["llama3.1:8b"] });
    const refused = await checkModelProvider({ ...fake.env(), OPENAI_API_KEY: "sk-wrong-key-9876", TACKLE_MODEL: "llama3.1:8b" });
    expect(refused[0]).toMatchObject({ ok: false, detail: `${fake.url} refused the request with OPENAI_API_KEY (HTTP 401)` });
    expect(printed(refused)).not.toContain("sk-wrong-key-9876");

    const missing = await checkModelProvider({ ...fake.env(), TACKLE_MODEL: "qwen3" });
    expect(missing[0]).toMatchObject({
      ok: false,
      detail: `${fake.url} does not list qwen3 (it serves: llama3.1:8b)`,
      fix: "set TACKLE_MODEL to a model the server serves",
    });

    const url = fake.url;
    const closed = await closedPort();
    const down = await checkModelProvider({ TACKLE_PROVIDER: "openai", OPENAI_BASE_URL: `http://user:pw-in-url@127.0.0.1:${closed}/v1`, TACKLE_MODEL: "m" });
    expect(down[0]?.ok).toBe(false);
    expect(down[0]?.detail).toMatch(/not reachable: .*ECONNREFUSED/);
    expect(down[0]?.detail).toContain("user:[REDACTED]@127.0.0.1");
    expect(down[0]?.detail).not.toContain("pw-in-url");

    expect((await checkModelProvider({ TACKLE_PROVIDER: "openai" }))[0]).toMatchObject({
      ok: false,
      detail: "TACKLE_PROVIDER=openai and OPENAI_BASE_URL is not set",
    });
    expect((await checkModelProvider({ TACKLE_PROVIDER: "openai", OPENAI_BASE_URL: url }))[0]).toMatchObject({
      ok: false,
      detail: `${url}: TACKLE_MODEL is not set`,
    });
    expect((await checkModelProvider({ TACKLE_PROVIDER: "azure" }))[0]).toMatchObject({ ok: false, name: "model provider" });
  });

  it("anthropic stays the default: the key is set or not", async () => {
    expect(await checkModelProvider({ ANTHROPIC_API_KEY: "sk-ant-x" })).toEqual([{ name: "model key", ok: true, detail: "ANTHROPIC_API_KEY is set" }]);
    expect((await checkModelProvider({}))[0]).toMatchObject({ name: "model key", ok: false });
  });
});
