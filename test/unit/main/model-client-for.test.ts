import { describe, expect, it } from "vitest";
import { FREE_PRICE, priceOf } from "../../../src/agent/pricing.js";
import { loadEnv } from "../../../src/config/index.js";
import { isTackleError } from "../../../src/errors/index.js";
import { missingModelCredentials, modelClientFor, modelSecrets } from "../../../src/main/model-client-for.js";

const local = (vars: Record<string, string>) => loadEnv(vars, { mode: "local", homeDir: "/home/op" });

describe("modelClientFor", () => {
  it("builds the client TACKLE_PROVIDER names, priced by that provider and the operator's prices", () => {
    const anthropic = modelClientFor(local({ ANTHROPIC_API_KEY: "sk-ant-x" }));
    expect(anthropic.name).toBe("anthropic");
    expect(anthropic.price?.("claude-sonnet-4-6")).toEqual(priceOf("claude-sonnet-4-6").price);

    const openai = modelClientFor(local({ TACKLE_PROVIDER: "openai", OPENAI_BASE_URL: "http://127.0.0.1:1/v1", TACKLE_MODEL_PRICES: "big-model=1/2" }));
    expect(openai.name).toBe("openai");
    expect(openai.price?.("llama3.1:8b")).toEqual(FREE_PRICE);
    expect(openai.price?.("big-model-v2")).toEqual({ input: 1, output: 2 });
  });

  it("openai without a base URL, and the providers not built here, fail with env_invalid", () => {
    let thrown: unknown;
    try {
      modelClientFor(local({ TACKLE_PROVIDER: "openai" }));
    } catch (error) {
      thrown = error;
    }
    expect(isTackleError(thrown, "env_invalid")).toBe(true);
    expect(missingModelCredentials(local({ TACKLE_PROVIDER: "openai" }))).toMatch(/OPENAI_BASE_URL/);
    expect(missingModelCredentials(local({}))).toBe("ANTHROPIC_API_KEY is not set");
    expect(missingModelCredentials(local({ TACKLE_PROVIDER: "openai", OPENAI_BASE_URL: "http://h/v1" }))).toBeUndefined();
    expect(() => modelClientFor(local({ TACKLE_PROVIDER: "bedrock" }))).toThrow(/not built yet/);
  });

  it("the redaction list holds every provider key and a password inside OPENAI_BASE_URL", () => {
    const env = local({
      ANTHROPIC_API_KEY: "sk-ant-x",
      TACKLE_PROVIDER: "openai",
      OPENAI_API_KEY: "sk-openai-y",
      OPENAI_BASE_URL: "https://proxy:pr0xy-pass@llm.example/v1",
    });
    expect(modelSecrets(env)).toEqual(expect.arrayContaining(["sk-ant-x", "sk-openai-y", "pr0xy-pass"]));
  });
});
