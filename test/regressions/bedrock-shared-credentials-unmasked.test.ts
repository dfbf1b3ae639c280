// Bedrock without AWS_ACCESS_KEY_ID signs with the AWS SDK's credential chain, which reads the shared
// credentials and config files (~/.aws/credentials, AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE). The
// job masked the keys of the environment only: a secret access key or session token from those files,
// echoed by a failure text, was not masked by value (a bare secret key has no shape the redactor knows).
//
// Fix: the one list of environment secrets reads those files when Bedrock is the provider.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { environmentSecrets } from "../../src/logging/environment-secrets.js";
import { createRedactor } from "../../src/util/redact.js";

const SECRET_KEY = "wJalrXUtnFEMIK7MDENGbPxRfiCYzEXAMPLEKEY1";
const SESSION = "IQoJb3JpZ2luX2VjEXAMPLEsessionTOKENvalue";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("Bedrock signing with the shared AWS files", () => {
  it("masks the secret key and session token those files hold", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "tackle-aws-"));
    const credentials = path.join(dir, "credentials");
    await writeFile(
      credentials,
      `[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = ${SECRET_KEY}\naws_session_token = ${SESSION}\n`,
    );
    const redact = createRedactor(environmentSecrets({ TACKLE_PROVIDER: "bedrock", AWS_REGION: "us-east-1", AWS_SHARED_CREDENTIALS_FILE: credentials }));
    const masked = redact(`signature mismatch for key ${SECRET_KEY} (session ${SESSION})`);
    expect(masked).not.toContain(SECRET_KEY);
    expect(masked).not.toContain(SESSION);
  });
});
