// The provider switch: one client per TACKLE_PROVIDER, priced by that provider and the operator's
// prices. Which credentials are masked: test/unit/logging/environment-secrets.test.ts.
import { describe, expect, it } from "vitest";
import { FREE_PRICE, priceOf } from "../../../src/agent/pricing.js";
import { loadEnv, missingModelSettings, type EnvVars } from "../../../src/config/index.js";
import { isTackleError } from "../../../src/errors/index.js";
import { modelClientFor } from "../../../src/main/model-client-for.js";

const local = (vars: EnvVars) => loadEnv(vars, { mode: "local", homeDir: "/home/op" });

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("modelClientFor", () => {
  it("builds the chosen provider's client, without loading a cloud SDK until the first call", () => {
    expect(modelClientFor(local({ ANTHROPIC_API_KEY: "sk-ant-x" })).name).toBe("anthropic");
    expect(modelClientFor(local({ TACKLE_PROVIDER: "openai", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" })).name).toBe("openai");
    expect(modelClientFor(local({ TACKLE_PROVIDER: "bedrock", AWS_REGION: "us-east-1" })).name).toBe("bedrock");
    expect(modelClientFor(local({ TACKLE_PROVIDER: "vertex", CLOUD_ML_REGION: "global" })).name).toBe("vertex");
  });

  it("prices by the provider and the operator's prices, on every provider", () => {
    const anthropic = modelClientFor(local({ ANTHROPIC_API_KEY: "sk-ant-x" }));
    expect(anthropic.price?.("claude-sonnet-4-6")).toEqual(priceOf("claude-sonnet-4-6").price);

    const openai = modelClientFor(local({ TACKLE_PROVIDER: "openai", OPENAI_BASE_URL: "http://127.0.0.1:1/v1", TACKLE_MODEL_PRICES: "big-model=1/2" }));
    expect(openai.price?.("llama3.1:8b")).toEqual(FREE_PRICE);
    expect(openai.price?.("big-model-v2")).toEqual({ input: 1, output: 2 });

    // Bedrock's and Vertex's ids find Claude's family; the operator's prices come first there too.
    const bedrock = modelClientFor(local({ TACKLE_PROVIDER: "bedrock", AWS_REGION: "us-east-1", TACKLE_MODEL_PRICES: "global.anthropic.claude-opus=7/8" }));
    expect(bedrock.price?.("global.anthropic.claude-sonnet-4-6")).toEqual(priceOf("claude-sonnet-4-6").price);
    expect(bedrock.price?.("us.anthropic.claude-sonnet-4-6").input).toBeCloseTo(3.3);
    expect(bedrock.price?.("global.anthropic.claude-opus-4-6-v1")).toEqual({ input: 7, output: 8 });
    const vertex = modelClientFor(local({ TACKLE_PROVIDER: "vertex", CLOUD_ML_REGION: "global" }));
    expect(vertex.price?.("claude-sonnet-4-5@20250929")).toEqual(priceOf("claude-sonnet-4-5").price);
  });

  it("refuses openai without its base URL and a cloud provider without its region, with env_invalid", () => {
    for (const [vars, name] of [
      [{ TACKLE_PROVIDER: "bedrock" }, "AWS_REGION"],
      [{ TACKLE_PROVIDER: "vertex" }, "CLOUD_ML_REGION"],
      [{ TACKLE_PROVIDER: "openai" }, "OPENAI_BASE_URL"],
    ] as const) {
      const error = thrown(() => modelClientFor(local(vars)));
      expect(isTackleError(error, "env_invalid")).toBe(true);
      expect((error as Error).message).toContain(name);
    }
  });

  it("says what the chosen provider lacks before a job runs: the key, the base URL and model, the region", () => {
    expect(missingModelSettings({ TACKLE_PROVIDER: "openai" }, "local").join("\n")).toMatch(/OPENAI_BASE_URL[\s\S]*TACKLE_MODEL/);
    expect(missingModelSettings({}, "local")).toEqual(["`ANTHROPIC_API_KEY`: required to run jobs in local mode"]);
    expect(missingModelSettings({ TACKLE_PROVIDER: "openai", OPENAI_BASE_URL: "http://h/v1", TACKLE_MODEL: "m" }, "local")).toEqual([]);
    expect(missingModelSettings({ TACKLE_PROVIDER: "bedrock" }, "local").join("\n")).toContain("AWS_REGION");
  });
});
