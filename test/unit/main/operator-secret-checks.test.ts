import { describe, expect, it } from "vitest";
import { operatorSecretChecks } from "../../../src/main/operator-secret-checks.js";

describe("tackle doctor: operator secrets", () => {
  it("says nothing when the operator set none", () => {
    expect(operatorSecretChecks({ ANTHROPIC_API_KEY: "k" })).toEqual([]);
  });

  it("names each scoped secret, never a value or a scope's value", () => {
    const [check] = operatorSecretChecks({ TACKLE_SECRET_DOCS: "v4lue", TACKLE_SECRET_DOCS_REPOS: "octo/*", TACKLE_SECRET_DOCS_HOSTS: "docs.example.com" });
    expect(check).toEqual({ name: "operator secrets", ok: true, detail: "TACKLE_SECRET_DOCS (repository patterns: 1, hosts: 1)" });
  });

  it("warns about a secret without _REPOS (no repository may use it) and a scope that does not parse", () => {
    const [check] = operatorSecretChecks({ TACKLE_SECRET_OLD: "v4lue", TACKLE_SECRET_DOCS: "d0cs", TACKLE_SECRET_DOCS_REPOS: "*" });
    expect(check?.ok).toBe(false);
    expect(check?.detail).toContain("`TACKLE_SECRET_DOCS_REPOS`: `*` is not a repository pattern");
    expect(check?.detail).toContain("`TACKLE_SECRET_OLD` is set without `TACKLE_SECRET_OLD_REPOS`, so no repository can use it");
    expect(check?.fix).toContain("TACKLE_SECRET_<NAME>_REPOS");
    expect(JSON.stringify(check)).not.toMatch(/v4lue|d0cs/);
  });
});
