import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { urlSecrets } from "./mask-url.js";

/**
 * The one list of which environment values are credentials. Every consumer reads it here: the env
 * loader (a problem message never echoes one), the logger and `doctor` (masked by value in every
 * line), each job's redactor (server, worker, local run, Action) and the Action's `setSecret`s. A
 * credential added to Tackle is masked everywhere once it is named like one, or added below.
 */

/**
 * Named like a credential: the contract's and each SDK's keys and tokens (`ANTHROPIC_API_KEY`,
 * `OPENAI_API_KEY`, `PRIVATE_KEY`, `WEBHOOK_SECRET`, `GITHUB_CLIENT_SECRET`, `TACKLE_METRICS_TOKEN`,
 * `TACKLE_DASHBOARD_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_BEARER_TOKEN_BEDROCK`,
 * `GITHUB_TOKEN`, `INPUT_*` of the same names, any `*_PASSWORD`) and every `TACKLE_SECRET_<NAME>`.
 */
const SECRET_NAME = /(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)(?:_|$)/i;

/**
 * Named like one but holding no credential: paths and files that point at one (their content is read
 * below), and a scoped secret's `_REPOS` and `_HOSTS` lists, which hold repository and host names that
 * must stay readable everywhere.
 */
const NOT_SECRET_NAME = /_(?:PATH|FILE|DIR)$|^GOOGLE_APPLICATION_CREDENTIALS$|^TACKLE_SECRET_\w+_(?:REPOS|HOSTS)$/i;

/** Fields of a Google credentials file that are credentials (the rest names accounts and endpoints). */
const GOOGLE_SECRET_FIELDS = ["private_key", "private_key_id", "client_secret", "refresh_token"];

/** Keys of an AWS shared credentials or config file that are credentials. */
const AWS_SECRET_KEYS = /^\s*(?:aws_access_key_id|aws_secret_access_key|aws_session_token)\s*=\s*(.+?)\s*$/gim;

/** Whether the variable's whole value is a credential. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !NOT_SECRET_NAME.test(name);
}

export interface EnvironmentSecretsOptions {
  /** @defaultValue readFileSync(path, "utf8") */
  readFile?: (path: string) => string;
  /** Where `~` is, for the SDKs' default credential files. @defaultValue os.homedir() */
  homeDir?: string;
}

/**
 * The process's credentials, to mask by value: the values of the variables named like secrets (as set,
 * and trimmed as the loader reads them), the passwords inside any URL, and the secrets inside the files
 * the variables point at: the App key (`PRIVATE_KEY_PATH`), the Google credentials file (or gcloud's
 * Application Default Credentials file when Vertex runs without one), and the AWS shared credentials
 * and config files Bedrock's credential chain reads. A file that cannot be read adds nothing.
 */
export function environmentSecrets(env: Readonly<Record<string, string | undefined>>, options: EnvironmentSecretsOptions = {}): string[] {
  const readFile = options.readFile ?? ((path: string) => readFileSync(path, "utf8"));
  const home = options.homeDir ?? homedir();
  const read = (path: string | undefined): string | null => {
    if (!path) return null;
    try {
      return readFile(path);
    } catch {
      return null;
    }
  };
  const values = Object.entries(env).flatMap(([name, value]) => {
    if (!value) return [];
    return isSecretName(name) ? [value, value.trim(), ...appKeyForms(name, value)] : urlSecrets(value);
  });
  const appKey = read(env.PRIVATE_KEY_PATH);
  if (appKey !== null) values.push(appKey, appKey.trim());
  values.push(...googleSecrets(env, home, read), ...awsSecrets(env, home, read));
  return [...new Set(values.filter((value) => value !== ""))];
}

/** `PRIVATE_KEY` as the loader reads it: `\n` escapes turned into line breaks, or base64 decoded. */
function appKeyForms(name: string, value: string): string[] {
  if (name !== "PRIVATE_KEY") return [];
  const unescaped = value.trim().replace(/\\n/g, "\n").trim();
  return [unescaped.includes("-----BEGIN") ? unescaped : Buffer.from(unescaped, "base64").toString("utf8").trim()];
}

function googleSecrets(env: Readonly<Record<string, string | undefined>>, home: string, read: (path: string | undefined) => string | null): string[] {
  // Without GOOGLE_APPLICATION_CREDENTIALS the Google library reads gcloud's file, when Vertex runs.
  const vertex = env.TACKLE_PROVIDER?.trim().toLowerCase() === "vertex";
  const gcloud = join(env.CLOUDSDK_CONFIG || join(home, ".config", "gcloud"), "application_default_credentials.json");
  const text = read(env.GOOGLE_APPLICATION_CREDENTIALS || (vertex ? gcloud : undefined));
  if (text === null) return [];
  try {
    return secretFields(JSON.parse(text));
  } catch {
    return [];
  }
}

/** The secret fields at any depth: an impersonated service account keeps its user's in `source_credentials`. */
function secretFields(value: unknown): string[] {
  if (typeof value !== "object" || value === null) return [];
  const fields = value as Record<string, unknown>;
  const own = GOOGLE_SECRET_FIELDS.map((name) => fields[name]).filter((field): field is string => typeof field === "string");
  return [...own, ...Object.values(fields).flatMap(secretFields)];
}

/** Bedrock without keys in the environment signs with the AWS SDK's chain, which reads these files. */
function awsSecrets(env: Readonly<Record<string, string | undefined>>, home: string, read: (path: string | undefined) => string | null): string[] {
  if (env.TACKLE_PROVIDER?.trim().toLowerCase() !== "bedrock") return [];
  const files = [env.AWS_SHARED_CREDENTIALS_FILE || join(home, ".aws", "credentials"), env.AWS_CONFIG_FILE || join(home, ".aws", "config")];
  return files.flatMap((file) => [...(read(file) ?? "").matchAll(AWS_SECRET_KEYS)].map((match) => match[1] ?? ""));
}
