import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { priceOf } from "../agent/pricing.js";
import { DEFAULT_MODELS, missingModelSettings } from "../config/index.js";
import type { Check } from "./doctor.js";

type Env = NodeJS.ProcessEnv;

/** Google credential types the auth library reads from a file. */
const GOOGLE_FILE_TYPES = new Set([
  "service_account",
  "authorized_user",
  "external_account",
  "external_account_authorized_user",
  "impersonated_service_account",
]);

/**
 * `tackle doctor`'s lines for the chosen model provider (TACKLE_PROVIDER): which provider and model,
 * and whether its credentials are there. Says where credentials come from, never what they are;
 * what the cloud SDKs find only by asking the network (an EC2 role, GCE's metadata server) is not
 * asked for, and the line says so.
 */
export function modelProviderChecks(env: Env): Check[] {
  const provider = env.TACKLE_PROVIDER?.trim().toLowerCase() || "anthropic";
  switch (provider) {
    case "anthropic":
      return [providerLine(env, provider), anthropicKey(env)];
    case "bedrock":
      return [providerLine(env, provider), ...settingsLines(env), awsCredentials(env)];
    case "vertex":
      return [providerLine(env, provider), ...settingsLines(env), vertexProject(env), googleCredentials(env)];
    case "openai":
      // Whether the server answers and serves the model needs asking it: checkModelProvider.
      return [{ name: "model provider", ok: true, detail: `openai, model ${env.TACKLE_MODEL?.trim() || "not set (TACKLE_MODEL)"}` }];
    default:
      return [
        {
          name: "model provider",
          ok: false,
          detail: `TACKLE_PROVIDER=${provider} is unknown`,
          fix: "set TACKLE_PROVIDER to anthropic, bedrock, vertex or openai",
        },
      ];
  }
}

function providerLine(env: Env, provider: keyof typeof DEFAULT_MODELS): Check {
  const model = env.TACKLE_MODEL?.trim() || DEFAULT_MODELS[provider];
  const price = priceOf(model).known ? "" : " (no known price: its cost is counted at the highest rate)";
  return { name: "model provider", ok: true, detail: `${provider}, model ${model}${price}` };
}

export function anthropicKey(env: Env): Check {
  return env.ANTHROPIC_API_KEY
    ? { name: "model key", ok: true, detail: "ANTHROPIC_API_KEY is set" }
    : {
        name: "model key",
        ok: false,
        detail: "ANTHROPIC_API_KEY is not set",
        fix: "export ANTHROPIC_API_KEY=sk-ant-… (or use --replay FILE for local runs)",
      };
}

/** The region and the like, as loadEnv checks them before a job runs. */
function settingsLines(env: Env): Check[] {
  return missingModelSettings(env, "server").map((problem) => ({
    name: "model settings",
    ok: false,
    detail: problem,
    fix: "see the README's Model providers section",
  }));
}

/** The sources the AWS SDK's chain tries, in its order, as far as the environment and ~/.aws show them. */
function awsCredentials(env: Env): Check {
  const name = "AWS credentials";
  const fix = "export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key)";
  if (env.AWS_BEARER_TOKEN_BEDROCK) return { name, ok: true, detail: "a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK)" };
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return { name, ok: true, detail: `static keys (AWS_ACCESS_KEY_ID${env.AWS_SESSION_TOKEN ? ", with AWS_SESSION_TOKEN" : ""})` };
  }
  if (env.AWS_ACCESS_KEY_ID || env.AWS_SECRET_ACCESS_KEY)
    return { name, ok: false, detail: "only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set", fix };
  if (env.AWS_WEB_IDENTITY_TOKEN_FILE && env.AWS_ROLE_ARN) return { name, ok: true, detail: "web identity (AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN)" };
  if (env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || env.AWS_CONTAINER_CREDENTIALS_FULL_URI)
    return { name, ok: true, detail: "the container's role (AWS_CONTAINER_CREDENTIALS_*)" };
  const home = env.HOME || homedir();
  const files = [env.AWS_SHARED_CREDENTIALS_FILE || path.join(home, ".aws", "credentials"), env.AWS_CONFIG_FILE || path.join(home, ".aws", "config")];
  const found = files.filter((file) => existsSync(file));
  const profile = env.AWS_PROFILE || "default";
  if (found.length > 0) return { name, ok: true, detail: `profile ${profile} from ${found.join(" and ")}` };
  return {
    name,
    ok: false,
    detail: `none in the environment or ${files.join(" or ")} (an EC2 instance role is not checked: only AWS can answer that)`,
    fix,
  };
}

function vertexProject(env: Env): Check {
  if (env.ANTHROPIC_VERTEX_PROJECT_ID) return { name: "Vertex project", ok: true, detail: `${env.ANTHROPIC_VERTEX_PROJECT_ID} (ANTHROPIC_VERTEX_PROJECT_ID)` };
  const file = readGoogleFile(env.GOOGLE_APPLICATION_CREDENTIALS);
  const project = file.ok ? (file.fields.project_id ?? file.fields.quota_project_id) : undefined;
  if (typeof project === "string" && project !== "") return { name: "Vertex project", ok: true, detail: `${project} (from GOOGLE_APPLICATION_CREDENTIALS)` };
  return {
    name: "Vertex project",
    ok: false,
    detail: "ANTHROPIC_VERTEX_PROJECT_ID is not set and the credentials file names no project",
    fix: "export ANTHROPIC_VERTEX_PROJECT_ID=<your Google Cloud project id>",
  };
}

function googleCredentials(env: Env): Check {
  const name = "Google credentials";
  const fix = "export GOOGLE_APPLICATION_CREDENTIALS=/path/to/credentials.json, or run `gcloud auth application-default login`";
  const explicit = env.GOOGLE_APPLICATION_CREDENTIALS;
  if (explicit) {
    const file = readGoogleFile(explicit);
    if (!file.ok) return { name, ok: false, detail: `GOOGLE_APPLICATION_CREDENTIALS: ${file.reason}`, fix };
    const type = file.fields.type;
    if (typeof type !== "string" || !GOOGLE_FILE_TYPES.has(type)) {
      return { name, ok: false, detail: "GOOGLE_APPLICATION_CREDENTIALS: the file's `type` is not a Google credential type", fix };
    }
    return { name, ok: true, detail: `${type} (GOOGLE_APPLICATION_CREDENTIALS)` };
  }
  const gcloud = env.CLOUDSDK_CONFIG || path.join(env.HOME || homedir(), ".config", "gcloud");
  const adc = path.join(gcloud, "application_default_credentials.json");
  if (existsSync(adc)) return { name, ok: true, detail: `application default credentials from ${adc}` };
  return {
    name,
    ok: false,
    detail: `GOOGLE_APPLICATION_CREDENTIALS is not set and ${adc} does not exist (the metadata server of GCE, GKE or Cloud Run is not checked: only Google can answer that)`,
    fix,
  };
}

function readGoogleFile(file: string | undefined): { ok: true; fields: Record<string, unknown> } | { ok: false; reason: string } {
  if (!file) return { ok: false, reason: "not set" };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return { ok: false, reason: `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null) return { ok: true, fields: parsed as Record<string, unknown> };
  } catch {
    // Reported below: the text itself is never echoed, it may be a key.
  }
  return { ok: false, reason: `${file} is not a JSON object` };
}
