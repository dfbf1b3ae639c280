// The job masks the secrets inside Vertex's Google credentials file by value (now environmentSecrets), but it
// looked only at the file's top-level fields, and only at the file GOOGLE_APPLICATION_CREDENTIALS names.
// A file of type `impersonated_service_account` (what `gcloud auth application-default login
// --impersonate-service-account` writes) keeps the user's refresh token and client secret in its nested
// `source_credentials`; and without GOOGLE_APPLICATION_CREDENTIALS the Google library reads gcloud's
// own file (~/.config/gcloud/application_default_credentials.json, a user's refresh token and client
// secret), which was never read for masking. Either way a failure text holding one went out unmasked,
// while the security model says the credentials file's secrets are masked by value.
//
// Fix: collect the secret fields at any depth of the file, and read gcloud's file when no other is named
// (CLOUDSDK_CONFIG, else ~/.config/gcloud, as the library does).
import { describe, expect, it } from "vitest";
import { environmentSecrets } from "../../src/logging/environment-secrets.js";
import { createRedactor } from "../../src/util/redact.js";

describe("Vertex with impersonated service account credentials", () => {
  it("masks the nested source credentials' refresh token and client secret", () => {
    const env = { TACKLE_PROVIDER: "vertex", CLOUD_ML_REGION: "global", GOOGLE_APPLICATION_CREDENTIALS: "/etc/gcp.json" };
    const file = JSON.stringify({
      type: "impersonated_service_account",
      service_account_impersonation_url: "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/sa@p.iam.gserviceaccount.com:generateAccessToken",
      delegates: [],
      source_credentials: {
        type: "authorized_user",
        client_id: "id.apps.googleusercontent.com",
        client_secret: "nested-client-secret-value",
        refresh_token: "1//nested-refresh-token-value",
      },
    });
    const redact = createRedactor(environmentSecrets(env, { readFile: () => file, homeDir: "/home/op" }));
    const masked = redact("token refresh failed: refresh_token=1//nested-refresh-token-value&client_secret=nested-client-secret-value");
    expect(masked).not.toContain("nested-refresh-token-value");
    expect(masked).not.toContain("nested-client-secret-value");
  });

  it("masks the refresh token of gcloud's Application Default Credentials file when no file is named", () => {
    const env = { TACKLE_PROVIDER: "vertex", CLOUD_ML_REGION: "global" };
    const files: Record<string, string> = {
      "/home/op/.config/gcloud/application_default_credentials.json": JSON.stringify({
        type: "authorized_user",
        client_id: "id.apps.googleusercontent.com",
        client_secret: "adc-client-secret-value",
        refresh_token: "1//adc-refresh-token-value",
      }),
    };
    const readFile = (file: string): string => {
      const text = files[file];
      if (text === undefined) throw new Error(`ENOENT: ${file}`);
      return text;
    };
    const masked = createRedactor(environmentSecrets(env, { readFile, homeDir: "/home/op" }))(
      "refresh_token=1//adc-refresh-token-value client_secret=adc-client-secret-value",
    );
    expect(masked).not.toContain("adc-refresh-token-value");
    expect(masked).not.toContain("adc-client-secret-value");
  });
});
