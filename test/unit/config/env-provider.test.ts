import { describe, expect, it } from "vitest";
import { loadEnv, parseEnv, type EnvVars } from "../../../src/config/index.js";

const PEM = "-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA\\nabcdef\\n-----END RSA PRIVATE KEY-----";
const app = { APP_ID: "12345", PRIVATE_KEY: PEM, WEBHOOK_SECRET: "s3cret" };

function problems(env: EnvVars): string[] {
  const result = parseEnv(env, { mode: "server", homeDir: "/home/op" });
  if (result.ok) throw new Error("expected problems");
  return result.problems;
}

describe("loadEnv: the model provider", () => {
  it("defaults to anthropic, with no OpenAI settings and no configured prices", () => {
    const env = loadEnv({ ...app, ANTHROPIC_API_KEY: "sk-ant-x" }, { homeDir: "/home/op" });
    expect(env).toMatchObject({ provider: "anthropic", openaiBaseUrl: null, openaiApiKey: null, modelPrices: [] });
  });

  it("openai: reads the base URL (trailing slash dropped) and the key, and needs no Anthropic key", () => {
    const env = loadEnv(
      { ...app, TACKLE_PROVIDER: " OpenAI ", OPENAI_BASE_URL: "http://vllm:8000/v1/", OPENAI_API_KEY: "sk-local", TACKLE_MODEL: "Qwen/Qwen3-Coder-30B" },
      { homeDir: "/home/op" },
    );
    expect(env).toMatchObject({
      provider: "openai",
      openaiBaseUrl: "http://vllm:8000/v1",
      openaiApiKey: "sk-local",
      model: "Qwen/Qwen3-Coder-30B",
      anthropicApiKey: null,
    });
  });

  it("openai: a process that runs jobs needs OPENAI_BASE_URL and TACKLE_MODEL, named in one report", () => {
    expect(problems({ ...app, TACKLE_PROVIDER: "openai" })).toEqual([
      "`OPENAI_BASE_URL`: required to run jobs with TACKLE_PROVIDER=openai (the server's base URL, such as http://localhost:8000/v1)",
      "`TACKLE_MODEL`: required with TACKLE_PROVIDER=openai (the model name the server serves)",
    ]);
    // A server that only enqueues (REDIS_URL) runs no job, so needs neither.
    expect(parseEnv({ ...app, TACKLE_PROVIDER: "openai", REDIS_URL: "redis://127.0.0.1:6379" }, { mode: "server" }).ok).toBe(true);
  });

  it("an unknown provider is reported, without also asking for a key it may not need; a bad base URL shows its value with the password masked", () => {
    expect(problems({ ...app, TACKLE_PROVIDER: "azure" })).toEqual(['`TACKLE_PROVIDER`: expected one of anthropic, bedrock, vertex, openai, got "azure"']);
    const bad = problems({ ...app, TACKLE_PROVIDER: "openai", TACKLE_MODEL: "m", OPENAI_BASE_URL: "ftp://user:hunter2@host/v1" });
    expect(bad).toEqual([
      '`OPENAI_BASE_URL`: expected an http(s) URL of a chat-completions server, such as http://localhost:8000/v1, got "ftp://user:[REDACTED]@host/v1"',
    ]);
  });

  it("TACKLE_MODEL_PRICES: prefixes with slashes and colons, two or three prices; each bad entry reported", () => {
    const env = loadEnv({ ...app, ANTHROPIC_API_KEY: "k", TACKLE_MODEL_PRICES: "Qwen/Qwen3-Coder=0.4/1.2/0.04, llama3.1:8b=0/0 ," }, { homeDir: "/home/op" });
    expect(env.modelPrices).toEqual([
      { prefix: "Qwen/Qwen3-Coder", input: 0.4, output: 1.2, cacheRead: 0.04 },
      { prefix: "llama3.1:8b", input: 0, output: 0 },
    ]);
    expect(problems({ ...app, ANTHROPIC_API_KEY: "k", TACKLE_MODEL_PRICES: "gpt-x=1,=1/2,m=1/two,n=1/2/3/4" })).toEqual([
      "`TACKLE_MODEL_PRICES`: `gpt-x=1` is not a model price: expected `model=input/output` or `model=input/output/cache_read` (USD per million tokens)",
      "`TACKLE_MODEL_PRICES`: `=1/2` is not a model price: expected `model=input/output` or `model=input/output/cache_read` (USD per million tokens)",
      "`TACKLE_MODEL_PRICES`: `m=1/two` is not a model price: prices are non-negative numbers such as 0.5",
      "`TACKLE_MODEL_PRICES`: `n=1/2/3/4` is not a model price: expected `model=input/output` or `model=input/output/cache_read` (USD per million tokens)",
    ]);
  });
});
