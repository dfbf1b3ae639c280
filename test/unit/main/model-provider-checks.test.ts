// `tackle doctor`'s model provider lines: where each provider's credentials would come from, checked
// in the environment and the files the SDKs read, never printed.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { modelProviderChecks } from "../../../src/main/model-provider-checks.js";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "tackle-doctor-"));
});
afterEach(() => rm(home, { recursive: true, force: true }));

const SECRET = `secret-access-key-${"s".repeat(20)}`;
const byName = (checks: ReturnType<typeof modelProviderChecks>) => Object.fromEntries(checks.map((check) => [check.name, check]));

describe("modelProviderChecks", () => {
  it("anthropic (the default): the provider, the model and whether the key is set", () => {
    expect(modelProviderChecks({ HOME: home, ANTHROPIC_API_KEY: "sk-ant-x" })).toEqual([
      { name: "model provider", ok: true, detail: "anthropic, model claude-sonnet-4-6" },
      { name: "model key", ok: true, detail: "ANTHROPIC_API_KEY is set" },
    ]);
    expect(byName(modelProviderChecks({ HOME: home }))["model key"]).toMatchObject({ ok: false });
  });

  it("bedrock: the region and which credentials the AWS SDK would use, never their values", async () => {
    const keys = byName(
      modelProviderChecks({
        HOME: home,
        TACKLE_PROVIDER: "bedrock",
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "AKIAEXAMPLE000000000",
        AWS_SECRET_ACCESS_KEY: SECRET,
      }),
    );
    expect(keys["model provider"]).toEqual({ name: "model provider", ok: true, detail: "bedrock, model global.anthropic.claude-sonnet-4-6" });
    expect(keys["AWS credentials"]).toEqual({ name: "AWS credentials", ok: true, detail: "static keys (AWS_ACCESS_KEY_ID)" });
    expect(JSON.stringify(keys)).not.toContain(SECRET);
    expect(JSON.stringify(keys)).not.toContain("AKIAEXAMPLE");

    const nothing = byName(modelProviderChecks({ HOME: home, TACKLE_PROVIDER: "bedrock" }));
    expect(nothing["model settings"]).toMatchObject({ ok: false, detail: expect.stringContaining("`AWS_REGION`: required") });
    expect(nothing["AWS credentials"]).toMatchObject({ ok: false, detail: expect.stringContaining("an EC2 instance role is not checked") });

    const half = byName(modelProviderChecks({ HOME: home, TACKLE_PROVIDER: "bedrock", AWS_REGION: "us-east-1", AWS_SECRET_ACCESS_KEY: SECRET }));
    expect(half["AWS credentials"]).toMatchObject({ ok: false, detail: "only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set" });

    await mkdir(path.join(home, ".aws"));
    await writeFile(path.join(home, ".aws", "credentials"), `[ci]\naws_access_key_id = AKIAEXAMPLE000000000\naws_secret_access_key = ${SECRET}\n`);
    const profile = byName(modelProviderChecks({ HOME: home, TACKLE_PROVIDER: "bedrock", AWS_REGION: "us-east-1", AWS_PROFILE: "ci" }));
    expect(profile["AWS credentials"]).toEqual({ name: "AWS credentials", ok: true, detail: `profile ci from ${path.join(home, ".aws", "credentials")}` });
  });

  it("bedrock: a model id with no known price is pointed out", () => {
    const checks = byName(
      modelProviderChecks({
        HOME: home,
        TACKLE_PROVIDER: "bedrock",
        AWS_REGION: "us-east-1",
        TACKLE_MODEL: "arn:aws:bedrock:us-east-1:1:application-inference-profile/x",
      }),
    );
    expect(checks["model provider"]!.detail).toContain("no known price");
  });

  it("vertex: the credentials file's type and project, or gcloud's application default credentials", async () => {
    const file = path.join(home, "sa.json");
    await writeFile(
      file,
      JSON.stringify({ type: "service_account", project_id: "from-the-file", private_key: "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n" }),
    );
    const fromFile = byName(modelProviderChecks({ HOME: home, TACKLE_PROVIDER: "vertex", CLOUD_ML_REGION: "global", GOOGLE_APPLICATION_CREDENTIALS: file }));
    expect(fromFile["Google credentials"]).toEqual({ name: "Google credentials", ok: true, detail: "service_account (GOOGLE_APPLICATION_CREDENTIALS)" });
    expect(fromFile["Vertex project"]).toMatchObject({ ok: true, detail: "from-the-file (from GOOGLE_APPLICATION_CREDENTIALS)" });
    expect(JSON.stringify(fromFile)).not.toContain("PRIVATE KEY");

    await writeFile(file, `not json but a secret ${SECRET}`);
    const garbled = byName(modelProviderChecks({ HOME: home, TACKLE_PROVIDER: "vertex", CLOUD_ML_REGION: "global", GOOGLE_APPLICATION_CREDENTIALS: file }));
    expect(garbled["Google credentials"]).toMatchObject({ ok: false, detail: `GOOGLE_APPLICATION_CREDENTIALS: ${file} is not a JSON object` });
    expect(garbled["Vertex project"]).toMatchObject({ ok: false });
    expect(JSON.stringify(garbled)).not.toContain(SECRET);

    const none = byName(modelProviderChecks({ HOME: home, TACKLE_PROVIDER: "vertex", CLOUD_ML_REGION: "global", ANTHROPIC_VERTEX_PROJECT_ID: "p-1" }));
    expect(none["Google credentials"]).toMatchObject({ ok: false, detail: expect.stringContaining("metadata server") });
    expect(none["Vertex project"]).toMatchObject({ ok: true, detail: "p-1 (ANTHROPIC_VERTEX_PROJECT_ID)" });

    const adc = path.join(home, ".config", "gcloud", "application_default_credentials.json");
    await mkdir(path.dirname(adc), { recursive: true });
    await writeFile(adc, JSON.stringify({ type: "authorized_user" }));
    const gcloud = byName(modelProviderChecks({ HOME: home, TACKLE_PROVIDER: "vertex", CLOUD_ML_REGION: "global", ANTHROPIC_VERTEX_PROJECT_ID: "p-1" }));
    expect(gcloud["Google credentials"]).toEqual({ name: "Google credentials", ok: true, detail: `application default credentials from ${adc}` });
  });

  it("an unknown provider fails with the list of known ones", () => {
    expect(modelProviderChecks({ HOME: home, TACKLE_PROVIDER: "azure" })).toEqual([
      { name: "model provider", ok: false, detail: "TACKLE_PROVIDER=azure is unknown", fix: "set TACKLE_PROVIDER to anthropic, bedrock, vertex or openai" },
    ]);
  });
});
