import { describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { createDestinationRules, type DestinationRules } from "../../../src/net/create-destination-rules.js";

/** The refusal's message, or "allowed". */
function verdict(rules: DestinationRules, url: string, addresses: string[] = []): string {
  try {
    const destination = rules.checkUrl(new URL(url));
    for (const address of destination.literal ? [destination.host] : addresses) rules.checkAddress(destination, address);
    return "allowed";
  } catch (error) {
    if (!isTackleError(error, "fetch_refused")) throw error;
    return error.message;
  }
}

describe("createDestinationRules: allow-lists", () => {
  it("`*` (and an unset list) is any public host on ports 80 and 443", () => {
    for (const rules of [createDestinationRules(null), createDestinationRules(["*"])]) {
      expect(verdict(rules, "https://docs.example.com/a", ["93.184.216.34"])).toBe("allowed");
      expect(verdict(rules, "http://docs.example.com:443/", ["93.184.216.34"])).toBe("allowed");
      expect(verdict(rules, "https://docs.example.com:8443/", ["93.184.216.34"])).toBe(
        "docs.example.com:8443 is not in the operator's allow-list (TACKLE_FETCH_ALLOW) (a pattern without a port allows ports 80 and 443 only)",
      );
      expect(verdict(rules, "http://8.8.8.8/")).toBe("allowed");
    }
  });

  it("`host` is that host only; `*.host` its subdomains, not itself", () => {
    const rules = createDestinationRules(["docs.example.com", "*.npmjs.org"]);
    const pub = ["93.184.216.34"];
    expect(verdict(rules, "https://DOCS.example.com./x", pub)).toBe("allowed");
    expect(verdict(rules, "https://www.docs.example.com/", pub)).toContain("not in the operator's allow-list");
    expect(verdict(rules, "https://example.com/", pub)).toContain("not in the operator's allow-list");
    expect(verdict(rules, "https://registry.npmjs.org/", pub)).toBe("allowed");
    expect(verdict(rules, "https://a.b.npmjs.org/", pub)).toBe("allowed");
    expect(verdict(rules, "https://npmjs.org/", pub)).toContain("not in the operator's allow-list");
    expect(verdict(rules, "https://evilnpmjs.org/", pub)).toContain("not in the operator's allow-list");
    expect(verdict(rules, "https://npmjs.org.evil.com/", pub)).toContain("not in the operator's allow-list");
  });

  it("an empty operator list turns WebFetch off, an empty repository list too", () => {
    expect(verdict(createDestinationRules([]), "https://example.com/")).toBe("WebFetch is off: the operator set TACKLE_FETCH_ALLOW to an empty list");
    expect(verdict(createDestinationRules(null, []), "https://example.com/")).toBe("WebFetch is off for this repository: its web_fetch.allow is an empty list");
  });

  it("the repository's list narrows the operator's and never widens it", () => {
    const narrowed = createDestinationRules(["*"], ["docs.example.com"]);
    expect(verdict(narrowed, "https://docs.example.com/", ["93.184.216.34"])).toBe("allowed");
    expect(verdict(narrowed, "https://other.example.com/", ["93.184.216.34"])).toBe(
      "other.example.com:443 is not in this repository's allow-list (web_fetch.allow in .github/tackle.yml)",
    );
    const widened = createDestinationRules(["docs.example.com"], ["*", "other.example.com"]);
    expect(verdict(widened, "https://other.example.com/", ["93.184.216.34"])).toContain("not in the operator's allow-list");
  });

  it("a repository cannot open a loopback address: only the operator's exact ip:port does", () => {
    expect(verdict(createDestinationRules(["*"], ["127.0.0.1:8080"]), "http://127.0.0.1:8080/")).toContain("not in the operator's allow-list");
    expect(verdict(createDestinationRules(["*"], ["127.0.0.1"]), "http://127.0.0.1/")).toContain("a loopback address");
    expect(verdict(createDestinationRules(["127.0.0.1:8080"], ["127.0.0.1:8080"]), "http://127.0.0.1:8080/")).toBe("allowed");
    expect(verdict(createDestinationRules(["127.0.0.1:8080"], ["*"]), "http://127.0.0.1:8080/")).toContain("not in this repository's allow-list");
  });

  it("an operator's ip:port opens exactly that address and port", () => {
    const rules = createDestinationRules(["127.0.0.1:8080", "[::1]:9000", "*"]);
    expect(verdict(rules, "http://127.0.0.1:8080/")).toBe("allowed");
    expect(verdict(rules, "http://127.1:8080/")).toBe("allowed"); // the same address, as URLs write it
    expect(verdict(rules, "http://[0:0::1]:9000/")).toBe("allowed");
    expect(verdict(rules, "http://127.0.0.1:8081/")).toContain("not in the operator's allow-list");
    expect(verdict(rules, "http://127.0.0.2:8080/")).toContain("not in the operator's allow-list");
    expect(verdict(rules, "http://127.0.0.1/")).toBe(
      "127.0.0.1 is a loopback address (127.0.0.0/8): only an exact ip:port in TACKLE_FETCH_ALLOW opens such a destination",
    );
    // A name allowed by `*` that resolves to the opened address on another port stays closed.
    expect(verdict(rules, "http://internal.example.com/", ["127.0.0.1"])).toContain("internal.example.com resolves to 127.0.0.1, a loopback address");
  });

  it("refuses every scheme but http and https, naming it", () => {
    const rules = createDestinationRules(null);
    for (const url of ["file:///etc/passwd", "ftp://example.com/", "data:text/plain,hi", "javascript:alert(1)", "gopher://example.com/"]) {
      const scheme = new URL(url).protocol;
      expect(verdict(rules, url)).toBe(`the scheme ${scheme} is refused: WebFetch reads http and https URLs only`);
    }
  });

  it("refuses credentials in the URL", () => {
    expect(verdict(createDestinationRules(null), "https://user:pw@example.com/", ["93.184.216.34"])).toContain("credentials");
  });

  it("refuses a host when any one of its addresses is not public", () => {
    const rules = createDestinationRules(["docs.example.com"]);
    expect(verdict(rules, "https://docs.example.com/", ["93.184.216.34", "10.0.0.5"])).toBe(
      "docs.example.com resolves to 10.0.0.5, a private address (10.0.0.0/8): only an exact ip:port in TACKLE_FETCH_ALLOW opens such a destination",
    );
    expect(verdict(rules, "https://docs.example.com/", ["::ffff:169.254.169.254"])).toContain("link-local");
  });

  it("a bad pattern is a config error naming its list", () => {
    expect(() => createDestinationRules(["example.com:8080"])).toThrow(/^TACKLE_FETCH_ALLOW: `example.com:8080` is not a host pattern/);
    expect(() => createDestinationRules(null, ["http://x"])).toThrow(/^web_fetch.allow: `http:\/\/x` is not a host pattern/);
  });
});
