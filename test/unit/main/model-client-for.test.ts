// The provider switch: one client per TACKLE_PROVIDER, priced by that provider and the operator's
// prices, and each provider's credentials on the job's redaction list (Vertex's read from its
// credentials file).
import { describe, expect, it } from "vitest";
import { FREE_PRICE, priceOf } from "../../../src/agent/pricing.js";
import { loadEnv, missingModelSettings, type EnvVars } from "../../../src/config/index.js";
import { isTackleError } from "../../../src/errors/index.js";
import { modelClientFor, modelSecretsFor } from "../../../src/main/model-client-for.js";

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

describe("modelSecretsFor", () => {
  it("lists the Anthropic key, and Bedrock's keys, session token and API key", () => {
    expect(modelSecretsFor(local({ ANTHROPIC_API_KEY: "sk-ant-x" }))).toEqual(["sk-ant-x"]);
    const bedrock = local({
      TACKLE_PROVIDER: "bedrock",
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "AKIAEXAMPLE000000000",
      AWS_SECRET_ACCESS_KEY: "secret-access-key-value",
      AWS_SESSION_TOKEN: "session-token-value",
      AWS_BEARER_TOKEN_BEDROCK: "bedrock-api-key-value",
    });
    expect(modelSecretsFor(bedrock).sort()).toEqual(["AKIAEXAMPLE000000000", "bedrock-api-key-value", "secret-access-key-value", "session-token-value"]);
  });

  it("holds every provider key and a password inside OPENAI_BASE_URL", () => {
    const env = local({
      ANTHROPIC_API_KEY: "sk-ant-x",
      TACKLE_PROVIDER: "openai",
      OPENAI_API_KEY: "sk-openai-y",
      OPENAI_BASE_URL: "https://proxy:pr0xy-pass@llm.example/v1",
    });
    expect(modelSecretsFor(env)).toEqual(expect.arrayContaining(["sk-ant-x", "sk-openai-y", "pr0xy-pass"]));
  });

  it("reads the secrets out of Vertex's credentials file: a service account's key, a user's refresh token", () => {
    const vertex = local({ TACKLE_PROVIDER: "vertex", CLOUD_ML_REGION: "global", GOOGLE_APPLICATION_CREDENTIALS: "/etc/gcp.json" });
    const files: Record<string, string> = {
      service: JSON.stringify({
        type: "service_account",
        project_id: "p",
        private_key_id: "0123abcd0123abcd",
        private_key: "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n",
        client_email: "a@p.iam.gserviceaccount.com",
      }),
      user: JSON.stringify({
        type: "authorized_user",
        client_id: "id.apps.googleusercontent.com",
        client_secret: "user-client-secret",
        refresh_token: "1//refresh-token-value",
      }),
    };
    expect(modelSecretsFor(vertex, () => files.service!)).toEqual(["-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n", "0123abcd0123abcd"]);
    expect(modelSecretsFor(vertex, () => files.user!)).toEqual(["user-client-secret", "1//refresh-token-value"]);
    expect(modelSecretsFor(vertex, () => "not json")).toEqual([]);
    expect(
      modelSecretsFor(vertex, () => {
        throw new Error("ENOENT");
      }),
    ).toEqual([]);
  });
});
