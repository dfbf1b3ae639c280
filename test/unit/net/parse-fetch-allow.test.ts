import { describe, expect, it } from "vitest";
import { parseEnv, parseRepoConfig } from "../../../src/config/index.js";
import { parseFetchAllow, parseHostPattern } from "../../../src/config/parse-fetch-allow.js";

describe("parseFetchAllow (TACKLE_FETCH_ALLOW)", () => {
  it("unset is null (any public host), set and empty is [] (off)", () => {
    expect(parseFetchAllow(undefined)).toEqual({ ok: true, allow: null });
    expect(parseFetchAllow("")).toEqual({ ok: true, allow: [] });
    expect(parseFetchAllow(" , ")).toEqual({ ok: true, allow: [] });
  });

  it("gives each pattern in canonical form, once", () => {
    expect(parseFetchAllow("Docs.Example.COM, *.npmjs.org,*, 127.0.0.1:8080, [0:0::1]:9000, 127.1:81, docs.example.com, bücher.example.")).toEqual({
      ok: true,
      allow: ["docs.example.com", "*.npmjs.org", "*", "127.0.0.1:8080", "[::1]:9000", "127.0.0.1:81", "xn--bcher-kva.example"],
    });
  });

  it("reports every bad pattern at once, saying what is wrong with each", () => {
    const result = parseFetchAllow("example.com:8080, https://example.com, ::1, *.10.0.0.1, 127.0.0.1:0, a*b.com, *.example.com:443");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      "`example.com:8080` is not a host pattern: a port may only follow an IP address (`ip:port`); a host name stands for ports 80 and 443",
      "`https://example.com` is not a host pattern: expected `host`, `*.host`, `*` or `ip:port`, without a scheme, user or path",
      "`::1` is not a host pattern: expected `host`, `*.host`, `*` or `ip:port`; an IPv6 address goes in brackets, as in `[::1]:8080`",
      "`*.10.0.0.1` is not a host pattern: `*.` must be followed by a domain name, not an IP address",
      "`127.0.0.1:0` is not a host pattern: the port must be from 1 to 65535",
      "`a*b.com` is not a host pattern: expected `host`, `*.host`, `*` or `ip:port`, a host name of letters, digits, dots and dashes",
      "`*.example.com:443` is not a host pattern: a `*.host` pattern takes no port",
    ]);
  });

  it("parses each kind of pattern", () => {
    expect(parseHostPattern("*")).toEqual({ ok: true, pattern: { kind: "any" }, text: "*" });
    expect(parseHostPattern("example.com")).toEqual({ ok: true, pattern: { kind: "host", host: "example.com" }, text: "example.com" });
    expect(parseHostPattern("*.example.com")).toEqual({ ok: true, pattern: { kind: "subdomains", host: "example.com" }, text: "*.example.com" });
    expect(parseHostPattern("[::ffff:127.0.0.1]:80")).toEqual({
      ok: true,
      pattern: { kind: "address", address: "[::ffff:7f00:1]", port: 80 },
      text: "[::ffff:7f00:1]:80",
    });
    expect(parseHostPattern("8.8.8.8")).toEqual({ ok: true, pattern: { kind: "host", host: "8.8.8.8" }, text: "8.8.8.8" });
  });
});

describe("loadEnv: TACKLE_FETCH_ALLOW", () => {
  const local = (vars: Record<string, string>) => parseEnv(vars, { mode: "local", runsJobs: false, homeDir: "/home/op" });

  it("is null when unset, [] when set and empty, the canonical list otherwise", () => {
    const unset = local({});
    const empty = local({ TACKLE_FETCH_ALLOW: "" });
    const list = local({ TACKLE_FETCH_ALLOW: "docs.example.com, 127.0.0.1:8080" });
    expect(unset.ok && unset.env.fetchAllow).toBeNull();
    expect(empty.ok && empty.env.fetchAllow).toEqual([]);
    expect(list.ok && list.env.fetchAllow).toEqual(["docs.example.com", "127.0.0.1:8080"]);
  });

  it("reports bad patterns with the environment's other problems", () => {
    const result = local({ TACKLE_FETCH_ALLOW: "example.com:8080,ftp://x", PORT: "nope" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      expect.stringContaining("`PORT`"),
      "`TACKLE_FETCH_ALLOW`: `example.com:8080` is not a host pattern: a port may only follow an IP address (`ip:port`); a host name stands for ports 80 and 443",
      "`TACKLE_FETCH_ALLOW`: `ftp://x` is not a host pattern: expected `host`, `*.host`, `*` or `ip:port`, without a scheme, user or path",
    ]);
  });
});

describe("parseRepoConfig: web_fetch.allow", () => {
  it("accepts host patterns and names each one that does not parse, with its line", () => {
    expect(parseRepoConfig("web_fetch:\n  allow: [docs.example.com, '*.npmjs.org']\n")).toMatchObject({
      ok: true,
      config: { web_fetch: { allow: ["docs.example.com", "*.npmjs.org"] } },
    });
    expect(parseRepoConfig("web_fetch:\n  allow:\n    - docs.example.com\n    - docs.example.com:8080\n")).toEqual({
      ok: false,
      problems: [
        "`web_fetch.allow[1]`: `docs.example.com:8080` is not a host pattern: a port may only follow an IP address (`ip:port`); a host name stands for ports 80 and 443 (line 4)",
      ],
    });
  });
});
