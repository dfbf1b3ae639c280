// The one list of which environment values are credentials (src/logging/environment-secrets.ts): the
// env loader, the logger, `doctor`, every job's redactor and the Action's setSecret all read it.
import { describe, expect, it } from "vitest";
import { environmentSecrets, isSecretName } from "../../../src/logging/environment-secrets.js";

const noFiles = {
  readFile: (file: string): string => {
    throw new Error(`ENOENT: ${file}`);
  },
  homeDir: "/home/op",
};

function filesAt(files: Record<string, string>) {
  return {
    homeDir: "/home/op",
    readFile: (file: string): string => {
      const text = files[file];
      if (text === undefined) throw new Error(`ENOENT: ${file}`);
      return text;
    },
  };
}

describe("isSecretName", () => {
  it("names every credential of the contract and of each SDK", () => {
    for (const name of [
      "ANTHROPIC_API_KEY",
      "INPUT_ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "PRIVATE_KEY",
      "WEBHOOK_SECRET",
      "GITHUB_CLIENT_SECRET",
      "GITHUB_TOKEN",
      "INPUT_GITHUB_TOKEN",
      "TACKLE_METRICS_TOKEN",
      "TACKLE_DASHBOARD_TOKEN",
      "TACKLE_SECRET_INFRA_TOKEN",
      "TACKLE_SECRET_DB",
      "AWS_ACCESS_KEY_ID",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_SESSION_TOKEN",
      "AWS_BEARER_TOKEN_BEDROCK",
      "REDIS_PASSWORD",
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
  });

  it("leaves out paths to credentials and a scoped secret's repository and host lists", () => {
    for (const name of [
      "PRIVATE_KEY_PATH",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "AWS_SHARED_CREDENTIALS_FILE",
      "TACKLE_SECRET_INFRA_REPOS",
      "TACKLE_SECRET_INFRA_HOSTS",
      "TACKLE_HOME",
      "APP_ID",
    ]) {
      expect(isSecretName(name), name).toBe(false);
    }
  });
});

describe("environmentSecrets", () => {
  it("lists the values named like credentials, as set and trimmed, and the passwords of URLs", () => {
    const secrets = environmentSecrets(
      {
        ANTHROPIC_API_KEY: "sk-ant-x",
        AWS_SECRET_ACCESS_KEY: " secret-access-key-value\n",
        GITHUB_CLIENT_SECRET: "client-secret-value",
        TACKLE_SECRET_INFRA: "infra-token-value",
        TACKLE_SECRET_INFRA_REPOS: "octo/widgets",
        REDIS_URL: "redis://:redis-pass@redis:6379",
        OPENAI_BASE_URL: "https://proxy:pr0xy-pass@llm.example/v1",
        TACKLE_HOME: "/var/tackle",
      },
      noFiles,
    );
    expect(secrets).toEqual(
      expect.arrayContaining(["sk-ant-x", "secret-access-key-value", "client-secret-value", "infra-token-value", "redis-pass", "pr0xy-pass"]),
    );
    expect(secrets).not.toContain("octo/widgets");
    expect(secrets).not.toContain("/var/tackle");
  });

  it("reads the App key PRIVATE_KEY_PATH names, and PRIVATE_KEY as the loader reads it", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEapp\n-----END RSA PRIVATE KEY-----\n";
    expect(environmentSecrets({ PRIVATE_KEY_PATH: "/etc/app.pem" }, filesAt({ "/etc/app.pem": pem }))).toContain(pem);
    expect(environmentSecrets({ PRIVATE_KEY: pem.replace(/\n/g, "\\n") }, noFiles)).toContain(pem.trim());
    expect(environmentSecrets({ PRIVATE_KEY: Buffer.from(pem).toString("base64") }, noFiles)).toContain(pem.trim());
  });

  it("reads the secrets out of the Google credentials file: a service account's key, a user's refresh token", () => {
    const env = { TACKLE_PROVIDER: "vertex", GOOGLE_APPLICATION_CREDENTIALS: "/etc/gcp.json" };
    const service = JSON.stringify({
      type: "service_account",
      private_key_id: "0123abcd0123abcd",
      private_key: "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n",
    });
    expect(environmentSecrets(env, filesAt({ "/etc/gcp.json": service }))).toEqual(
      expect.arrayContaining(["-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n", "0123abcd0123abcd"]),
    );
    const user = JSON.stringify({ type: "authorized_user", client_secret: "user-client-secret", refresh_token: "1//refresh-token-value" });
    expect(environmentSecrets(env, filesAt({ "/etc/gcp.json": user }))).toEqual(expect.arrayContaining(["user-client-secret", "1//refresh-token-value"]));
    expect(environmentSecrets(env, filesAt({ "/etc/gcp.json": "not json" }))).toEqual([]);
    expect(environmentSecrets(env, noFiles)).toEqual([]);
  });

  it("reads the AWS shared credentials and config files when Bedrock signs with the SDK's chain", () => {
    const files = filesAt({
      "/home/op/.aws/credentials": "[default]\naws_access_key_id = AKIAEXAMPLE000000000\naws_secret_access_key = shared-file-secret-key\n",
      "/srv/aws-config": "[profile ci]\nregion = us-east-1\naws_session_token=shared-file-session-token\n",
    });
    const secrets = environmentSecrets({ TACKLE_PROVIDER: "bedrock", AWS_CONFIG_FILE: "/srv/aws-config" }, files);
    expect(secrets).toEqual(expect.arrayContaining(["AKIAEXAMPLE000000000", "shared-file-secret-key", "shared-file-session-token"]));
    expect(secrets).not.toContain("us-east-1");
  });
});
