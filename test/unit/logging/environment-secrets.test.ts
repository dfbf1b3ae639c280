import { describe, expect, it } from "vitest";
import { environmentSecrets } from "../../../src/logging/environment-secrets.js";

describe("environmentSecrets", () => {
  it("masks an operator secret, not its scope (repository names and hosts appear in every log line)", () => {
    const env = { TACKLE_SECRET_DOCS: "d0cs-secret-value", TACKLE_SECRET_DOCS_REPOS: "octo/widgets", TACKLE_SECRET_DOCS_HOSTS: "docs.example.com" };
    expect(environmentSecrets(env)).toEqual(["d0cs-secret-value"]);
  });
});
