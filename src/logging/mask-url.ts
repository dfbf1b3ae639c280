/**
 * Query parameters that carry a credential: ioredis, for one, reads `?password=` as the password
 * (every query parameter of a Redis URL becomes a connection option).
 */
const SECRET_PARAM = /pass|secret|token|key|auth/i;

/** The redactor's own mark, which it leaves alone: a masked URL reads the same in a log line and in `doctor`. */
const MASK = "[REDACTED]";

/** Scheme (optional, as ioredis allows `user:pass@host:6379`), authority, and the rest. */
const URL_PARTS = /^((?:[a-z][a-z0-9+.-]*:)?\/\/)?([^/?#]*)(.*)$/is;

/**
 * A URL fit to print: its password, in the user info or in a query parameter, replaced by
 * `[REDACTED]` (`redis://:[REDACTED]@redis:6379`); everything else as written. Works on the text, so
 * what does not parse as a URL is masked too.
 */
export function maskUrl(text: string): string {
  const [, scheme = "", authority = "", rest = ""] = URL_PARTS.exec(text) ?? [];
  // The user info ends at the authority's last "@", as URL parsers read it (a raw "@" in a password).
  const at = authority.lastIndexOf("@");
  const colon = authority.slice(0, Math.max(at, 0)).indexOf(":");
  const host = at >= 0 && colon >= 0 ? `${authority.slice(0, colon)}:${MASK}${authority.slice(at)}` : authority;
  const query = rest.replace(/([?&])([^=&#]*)=([^&#]*)/g, (param, separator: string, name: string) =>
    SECRET_PARAM.test(name) ? `${separator}${name}=${MASK}` : param,
  );
  return `${scheme}${host}${query}`;
}

/** The credentials a URL carries (its password, secret query parameters), for masking by value. */
export function urlSecrets(text: string): string[] {
  if (!text.includes("://")) return [];
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  const secrets = [...url.searchParams.entries()].flatMap(([name, value]) => (SECRET_PARAM.test(name) && value ? [value] : []));
  if (url.password) secrets.push(url.password, decoded(url.password));
  return [...new Set(secrets)];
}

/** The password as the client sends it (`p%40ss` is `p@ss`), or as written when it is not valid percent-encoding. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
