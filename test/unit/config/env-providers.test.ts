// TACKLE_PROVIDER and each provider's own variables in loadEnv: what is required to run jobs, what
// is read, and what is left to the cloud SDKs' credential chains.
import { describe, expect, it } from "vitest";
import { DEFAULT_MODELS, loadEnv, missingModelSettings, parseEnv, type EnvVars } from "../../../src/config/index.js";

const PEM = "-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA\\nabcdef\\n-----END RSA PRIVATE KEY-----";
const app = { APP_ID: "12345", PRIVATE_KEY: PEM, REDIS_URL: "redis://127.0.0.1:6379" };
const SECRET = `aws/secret/access/key/${"x".repeat(20)}`;

function problems(env: EnvVars, options: { runsJobs?: boolean } = {}): string[] {
  const result = parseEnv(env, { mode: "worker", homeDir: "/home/op", ...options });
  if (result.ok) throw new Error("expected problems");
  return result.problems;
}

describe("TACKLE_PROVIDER", () => {
  it("defaults to anthropic, with no cloud settings", () => {
    const env = loadEnv({ ...app, ANTHROPIC_API_KEY: "sk-ant-test" }, { mode: "worker" });
    expect(env).toMatchObject({ provider: "anthropic", bedrock: null, vertex: null, model: "claude-sonnet-4-6" });
  });

  it("refuses an unknown provider, naming the four", () => {
    expect(problems({ ...app, TACKLE_PROVIDER: "azure" })).toContain('`TACKLE_PROVIDER`: expected one of anthropic, bedrock, vertex, openai, got "azure"');
  });

  it("leaves AWS and Google variables alone while another provider is chosen", () => {
    const env = loadEnv({ ...app, ANTHROPIC_API_KEY: "sk-ant-test", AWS_REGION: "not a region", CLOUD_ML_REGION: "??" }, { mode: "worker" });
    expect(env.provider).toBe("anthropic");
  });
});

describe("TACKLE_PROVIDER=bedrock", () => {
  it("reads the AWS SDK's variables, needs no Anthropic key, and defaults to Bedrock's model id", () => {
    const env = loadEnv(
      {
        ...app,
        TACKLE_PROVIDER: " Bedrock ",
        AWS_REGION: "eu-central-1",
        AWS_ACCESS_KEY_ID: "AKIAEXAMPLE000000000",
        AWS_SECRET_ACCESS_KEY: SECRET,
        AWS_SESSION_TOKEN: "session-token-value",
        ANTHROPIC_BEDROCK_BASE_URL: "https://vpce-123.bedrock-runtime.eu-central-1.vpce.amazonaws.com",
      },
      { mode: "worker" },
    );
    expect(env).toMatchObject({ provider: "bedrock", anthropicApiKey: null, vertex: null, model: DEFAULT_MODELS.bedrock });
    expect(env.bedrock).toEqual({
      region: "eu-central-1",
      baseUrl: "https://vpce-123.bedrock-runtime.eu-central-1.vpce.amazonaws.com",
      keys: { accessKeyId: "AKIAEXAMPLE000000000", secretAccessKey: SECRET, sessionToken: "session-token-value" },
      apiKey: null,
    });
    expect(env.allowedModels).toEqual(["global.anthropic.claude-sonnet-4-6"]);
  });

  it("without keys leaves credentials to the AWS SDK's chain; AWS_DEFAULT_REGION stands in for AWS_REGION", () => {
    const env = loadEnv(
      { ...app, TACKLE_PROVIDER: "bedrock", AWS_DEFAULT_REGION: "us-west-2", AWS_PROFILE: "ci", TACKLE_MODEL: "us.anthropic.claude-opus-4-6-v1" },
      { mode: "worker" },
    );
    expect(env.bedrock).toEqual({ region: "us-west-2", baseUrl: null, keys: null, apiKey: null });
    expect(env.model).toBe("us.anthropic.claude-opus-4-6-v1");
  });

  it("takes a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK)", () => {
    const env = loadEnv({ ...app, TACKLE_PROVIDER: "bedrock", AWS_REGION: "us-east-1", AWS_BEARER_TOKEN_BEDROCK: "bedrock-api-key-value" }, { mode: "worker" });
    expect(env.bedrock?.apiKey).toBe("bedrock-api-key-value");
  });

  it("reports a missing or malformed region and half a key pair, all at once, without the secret", () => {
    const halfPair = problems({ ...app, TACKLE_PROVIDER: "bedrock", AWS_SECRET_ACCESS_KEY: SECRET });
    expect(halfPair.join("\n")).not.toContain(SECRET);
    expect(halfPair).toEqual([
      "`AWS_REGION`: required with TACKLE_PROVIDER=bedrock (the Bedrock runtime's region, such as us-east-1)",
      "`AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`: set both, or neither to use the AWS SDK's credential chain",
    ]);
    const listed = problems({ ...app, TACKLE_PROVIDER: "bedrock", AWS_REGION: "Frankfurt", ANTHROPIC_BEDROCK_BASE_URL: "vpce-123" });
    expect(listed).toEqual([
      '`ANTHROPIC_BEDROCK_BASE_URL`: expected an http(s) URL, got "vpce-123"',
      '`AWS_REGION`: expected an AWS region such as us-east-1, got "Frankfurt"',
    ]);
  });

  it("requires nothing of the provider in a process that runs no jobs", () => {
    expect(loadEnv({ ...app, TACKLE_PROVIDER: "bedrock", WEBHOOK_SECRET: "s" }, { mode: "server" }).bedrock?.region).toBeNull();
  });
});

describe("TACKLE_PROVIDER=vertex", () => {
  it("reads the Vertex SDK's and Google's variables and defaults to Vertex's model id", () => {
    const env = loadEnv(
      {
        ...app,
        TACKLE_PROVIDER: "vertex",
        CLOUD_ML_REGION: "global",
        ANTHROPIC_VERTEX_PROJECT_ID: "my-project-123",
        GOOGLE_APPLICATION_CREDENTIALS: "/etc/tackle/gcp.json",
      },
      { mode: "worker" },
    );
    expect(env).toMatchObject({ provider: "vertex", bedrock: null, model: DEFAULT_MODELS.vertex });
    expect(env.vertex).toEqual({
      region: "global",
      projectId: "my-project-123",
      baseUrl: null,
      credentialsFile: "/etc/tackle/gcp.json",
      defaultCredentialsFile: expect.stringMatching(/application_default_credentials\.json$/),
    });
  });

  it("requires CLOUD_ML_REGION to run jobs and checks the project id and base URL", () => {
    expect(problems({ ...app, TACKLE_PROVIDER: "vertex" })).toEqual([
      "`CLOUD_ML_REGION`: required with TACKLE_PROVIDER=vertex (a Vertex AI region such as global or us-east5)",
    ]);
    expect(
      problems({
        ...app,
        TACKLE_PROVIDER: "vertex",
        CLOUD_ML_REGION: "us east",
        ANTHROPIC_VERTEX_PROJECT_ID: "my project",
        ANTHROPIC_VERTEX_BASE_URL: "ftp://x",
      }),
    ).toEqual([
      '`ANTHROPIC_VERTEX_PROJECT_ID`: expected a Google Cloud project id, such as my-project-123, got "my project"',
      '`ANTHROPIC_VERTEX_BASE_URL`: expected an http(s) URL, got "ftp://x"',
      '`CLOUD_ML_REGION`: expected a Vertex AI region such as global or us-east5, got "us east"',
    ]);
  });
});

describe("missingModelSettings", () => {
  it("is what an entry point checks before running a job: Anthropic's key (or the Action's input), or the cloud's region", () => {
    expect(missingModelSettings({}, "local")).toEqual(["`ANTHROPIC_API_KEY`: required to run jobs in local mode"]);
    expect(missingModelSettings({ INPUT_ANTHROPIC_API_KEY: "sk-ant-input" }, "action")).toEqual([]);
    expect(missingModelSettings({ TACKLE_PROVIDER: "bedrock", AWS_REGION: "us-east-1" }, "action")).toEqual([]);
    expect(missingModelSettings({ TACKLE_PROVIDER: "vertex", CLOUD_ML_REGION: "europe-west1" }, "action")).toEqual([]);
    expect(missingModelSettings({ TACKLE_PROVIDER: "vertex", ANTHROPIC_API_KEY: "sk-ant-x" }, "action")).toHaveLength(1);
  });
});
