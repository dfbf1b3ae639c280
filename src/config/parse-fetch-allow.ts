import { isIP } from "node:net";

/**
 * One entry of a WebFetch allow-list (TACKLE_FETCH_ALLOW, or a repository's `web_fetch.allow`).
 * Every kind but `address` stands for ports 80 and 443 only.
 */
export type HostPattern =
  /** `*`: any host (the address check still refuses non-public destinations). */
  | { kind: "any" }
  /** `example.com` or a bare IP: exactly that host. */
  | { kind: "host"; host: string }
  /** `*.example.com`: any name below `host`, not `host` itself. */
  | { kind: "subdomains"; host: string }
  /** `127.0.0.1:8080`, `[::1]:8080`: exactly that address and port, the only way to open a non-public one. */
  | { kind: "address"; address: string; port: number };

export type HostPatternResult = { ok: true; pattern: HostPattern; text: string } | { ok: false; problem: string };

export type FetchAllowResult = { ok: true; allow: string[] | null } | { ok: false; problems: string[] };

const SHAPES = "`host`, `*.host`, `*` or `ip:port`";

/**
 * Parses TACKLE_FETCH_ALLOW: unset is null (any public host, as `*`); set and empty (or only commas
 * and spaces) is `[]`, which turns WebFetch off. Each pattern comes back in its canonical text (lower
 * case, punycode, IP addresses as WHATWG URLs write them); every bad pattern is its own problem.
 */
export function parseFetchAllow(value: string | undefined): FetchAllowResult {
  if (value === undefined) return { ok: true, allow: null };
  const allow: string[] = [];
  const problems: string[] = [];
  for (const entry of value.split(",")) {
    if (entry.trim() === "") continue;
    const parsed = parseHostPattern(entry);
    if (parsed.ok) allow.push(parsed.text);
    else problems.push(parsed.problem);
  }
  return problems.length === 0 ? { ok: true, allow: [...new Set(allow)] } : { ok: false, problems };
}

/** One allow-list pattern; the problem names the pattern and says what is wrong with it. */
export function parseHostPattern(raw: string): HostPatternResult {
  const text = raw.trim();
  const bad = (why: string): HostPatternResult => ({ ok: false, problem: `\`${text}\` is not a host pattern: ${why}` });
  if (text === "*") return { ok: true, pattern: { kind: "any" }, text };
  if (text === "") return bad(`expected ${SHAPES}`);
  if (/[\s/\\@?#]/.test(text)) return bad(`expected ${SHAPES}, without a scheme, user or path`);
  const subdomains = text.startsWith("*.");
  const rest = subdomains ? text.slice(2) : text;
  const withPort = /^(\[[^\]]*\]|[^:[\]]+):(\d{1,5})$/.exec(rest);
  const host = canonicalHost(withPort?.[1] ?? rest);
  if (host === null) {
    const hint = rest.includes(":") ? "; an IPv6 address goes in brackets, as in `[::1]:8080`" : ", a host name of letters, digits, dots and dashes";
    return bad(`expected ${SHAPES}${hint}`);
  }
  const ip = isIP(unbracket(host)) !== 0;
  if (withPort !== undefined && withPort !== null) {
    const port = Number(withPort[2]);
    if (subdomains) return bad("a `*.host` pattern takes no port");
    if (!ip) return bad("a port may only follow an IP address (`ip:port`); a host name stands for ports 80 and 443");
    if (port < 1 || port > 65_535) return bad("the port must be from 1 to 65535");
    return { ok: true, pattern: { kind: "address", address: host, port }, text: `${host}:${port}` };
  }
  if (subdomains) {
    if (ip) return bad("`*.` must be followed by a domain name, not an IP address");
    return { ok: true, pattern: { kind: "subdomains", host }, text: `*.${host}` };
  }
  return { ok: true, pattern: { kind: "host", host }, text: host };
}

/**
 * A host as WHATWG URL parsing writes it (so `127.1` and `0x7f.0.0.1` become `127.0.0.1`, IPv6 is
 * compressed and bracketed), without a trailing dot; null when it is not a plain domain name or IP.
 */
function canonicalHost(text: string): string | null {
  let hostname: string;
  try {
    hostname = new URL(`http://${text}/`).hostname;
  } catch {
    return null;
  }
  const host = hostname.replace(/\.$/, "");
  if (host.startsWith("[")) return host;
  // URL parsing lets through `*`, `!`, `$`… in domain names; allow-lists only ever name real ones.
  return /^[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?$/.test(host) && !host.includes("..") ? host : null;
}

function unbracket(host: string): string {
  return host.replace(/^\[(.*)\]$/, "$1");
}
