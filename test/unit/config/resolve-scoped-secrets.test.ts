import { describe, expect, it } from "vitest";
import { parseOperatorSecrets, resolveScopedSecrets } from "../../../src/config/index.js";

const repo = { owner: "Octo", name: "Widgets" };

describe("parseOperatorSecrets", () => {
  it("reads each secret with its scopes; scope variables are not secrets, and their values are not redacted", () => {
    const parsed = parseOperatorSecrets({
      TACKLE_SECRET_DOCS: "s3cret",
      TACKLE_SECRET_DOCS_REPOS: "octo/widgets, Acme/*  other/repo.js",
      TACKLE_SECRET_DOCS_HOSTS: "docs.example.com,*.internal.example 127.0.0.1:8080",
      TACKLE_SECRET_EMPTY: "",
      ANTHROPIC_API_KEY: "sk-ant-key",
    });
    expect(parsed.problems).toEqual([]);
    expect([...parsed.secrets.keys()]).toEqual(["TACKLE_SECRET_DOCS"]);
    expect(parsed.secrets.get("TACKLE_SECRET_DOCS")).toEqual({
      value: "s3cret",
      repos: ["octo/widgets", "acme/*", "other/repo.js"],
      hosts: [
        { kind: "host", host: "docs.example.com" },
        { kind: "subdomains", host: "internal.example" },
        { kind: "address", address: "127.0.0.1", port: 8080 },
      ],
    });
  });

  it("refuses `*` and what is not a pattern, naming the variable and the entry", () => {
    const parsed = parseOperatorSecrets({
      TACKLE_SECRET_A: "x",
      TACKLE_SECRET_A_REPOS: "*, */*, octo, octo/widgets/x",
      TACKLE_SECRET_A_HOSTS: "*, https://docs.example.com",
    });
    expect(parsed.problems).toEqual([
      "`TACKLE_SECRET_A_REPOS`: `*` is not a repository pattern: expected `owner/name` or `owner/*` (a secret goes only to repositories named here)",
      "`TACKLE_SECRET_A_REPOS`: `*/*` is not a repository pattern: expected `owner/name` or `owner/*` (a secret goes only to repositories named here)",
      "`TACKLE_SECRET_A_REPOS`: `octo` is not a repository pattern: expected `owner/name` or `owner/*` (a secret goes only to repositories named here)",
      "`TACKLE_SECRET_A_REPOS`: `octo/widgets/x` is not a repository pattern: expected `owner/name` or `owner/*` (a secret goes only to repositories named here)",
      "`TACKLE_SECRET_A_HOSTS`: `*` would send the secret to any host; name its hosts (`host`, `*.host`, `ip:port`)",
      "`TACKLE_SECRET_A_HOSTS`: `https://docs.example.com` is not a host pattern: expected `host`, `*.host`, `*` or `ip:port`, without a scheme, user or path",
    ]);
  });

  it("warns about a secret no repository may use, and a scope without its secret", () => {
    expect(parseOperatorSecrets({ TACKLE_SECRET_A: "x", TACKLE_SECRET_B_HOSTS: "example.com" }).warnings).toEqual([
      "`TACKLE_SECRET_A` is set without `TACKLE_SECRET_A_REPOS`, so no repository can use it",
      "`TACKLE_SECRET_B_HOSTS` is set, but `TACKLE_SECRET_B` is not",
    ]);
  });
});

describe("resolveScopedSecrets", () => {
  const { secrets } = parseOperatorSecrets({
    TACKLE_SECRET_DOCS: "s3cret",
    TACKLE_SECRET_DOCS_REPOS: "octo/widgets",
    TACKLE_SECRET_DOCS_HOSTS: "docs.example.com",
    TACKLE_SECRET_ORG: "org-token",
    TACKLE_SECRET_ORG_REPOS: "octo/*",
    TACKLE_SECRET_OPEN: "unscoped",
  });
  const env = (values: Record<string, string>, which = repo) => resolveScopedSecrets(values, { repo: which, where: "mcp_servers.x.env" }, secrets);
  const headers = (values: Record<string, string>, url: string) =>
    resolveScopedSecrets(values, { repo, url: new URL(url), where: "mcp_servers.x.headers" }, secrets);

  it("fills a secret for a repository its _REPOS lists, by name or owner/*, case-insensitively; other ${…} stay literal", () => {
    expect(env({ a: "Bearer ${TACKLE_SECRET_DOCS}", b: "${ANTHROPIC_API_KEY}", c: "${TACKLE_SECRET_ORG}" })).toEqual({
      ok: true,
      values: { a: "Bearer s3cret", b: "${ANTHROPIC_API_KEY}", c: "org-token" },
    });
    expect(env({ c: "${TACKLE_SECRET_ORG}" }, { owner: "OCTO", name: "gadgets" })).toEqual({ ok: true, values: { c: "org-token" } });
  });

  it("refuses a secret for another repository, one without _REPOS and one not set, in the same words", () => {
    const text = (name: string, who: string) =>
      `\`mcp_servers.x.env.k\` names \`${name}\`, which is not available to ${who}: the operator must set it and list the repository in \`${name}_REPOS\``;
    expect(env({ k: "${TACKLE_SECRET_DOCS}" }, { owner: "evil", name: "widgets" })).toEqual({
      ok: false,
      problems: [text("TACKLE_SECRET_DOCS", "evil/widgets")],
    });
    expect(env({ k: "${TACKLE_SECRET_ORG}" }, { owner: "octopus", name: "x" })).toEqual({ ok: false, problems: [text("TACKLE_SECRET_ORG", "octopus/x")] });
    expect(env({ k: "${TACKLE_SECRET_OPEN}" })).toEqual({ ok: false, problems: [text("TACKLE_SECRET_OPEN", "Octo/Widgets")] });
    expect(env({ k: "${TACKLE_SECRET_NOPE}" })).toEqual({ ok: false, problems: [text("TACKLE_SECRET_NOPE", "Octo/Widgets")] });
    // A scope variable is never a secret a repository can name.
    expect(env({ k: "${TACKLE_SECRET_DOCS_REPOS}" })).toMatchObject({ ok: false });
  });

  it("sends a header secret only to a host its _HOSTS lists, on ports 80 and 443 for a host name", () => {
    expect(headers({ Authorization: "Bearer ${TACKLE_SECRET_DOCS}" }, "https://DOCS.example.com./mcp")).toEqual({
      ok: true,
      values: { Authorization: "Bearer s3cret" },
    });
    const refused = (shown: string, name = "TACKLE_SECRET_DOCS") =>
      `\`mcp_servers.x.headers.Authorization\` names \`${name}\`, which may not be sent to ${shown}: that host is not in \`${name}_HOSTS\``;
    expect(headers({ Authorization: "${TACKLE_SECRET_DOCS}" }, "https://evil.example/mcp")).toEqual({ ok: false, problems: [refused("evil.example:443")] });
    expect(headers({ Authorization: "${TACKLE_SECRET_DOCS}" }, "http://docs.example.com:8080/mcp")).toEqual({
      ok: false,
      problems: [refused("docs.example.com:8080")],
    });
    expect(headers({ Authorization: "${TACKLE_SECRET_DOCS}" }, "https://a.docs.example.com/mcp")).toMatchObject({ ok: false });
    // Never in clear text to a host name; an operator's ip:port (its own network) may be plain http.
    expect(headers({ Authorization: "${TACKLE_SECRET_DOCS}" }, "http://docs.example.com/mcp")).toEqual({
      ok: false,
      problems: [
        "`mcp_servers.x.headers.Authorization` names `TACKLE_SECRET_DOCS`, which may not be sent to docs.example.com:80 over plain http: use https (only an `ip:port` in `TACKLE_SECRET_DOCS_HOSTS` takes http)",
      ],
    });
    // In scope for the repository but with no _HOSTS: usable in a stdio env, never in a header.
    expect(env({ k: "${TACKLE_SECRET_ORG}" })).toMatchObject({ ok: true });
    expect(headers({ Authorization: "${TACKLE_SECRET_ORG}" }, "https://docs.example.com/mcp")).toEqual({
      ok: false,
      problems: [refused("docs.example.com:443", "TACKLE_SECRET_ORG")],
    });
  });
});
