import { canonicalAddress, type Destination, type HostPattern, isStandardPort, matchesHostPattern, parseHostPattern, urlDestination } from "../config/index.js";
import { TackleError } from "../errors/index.js";
import { classifyAddress } from "./classify-address.js";

export type { Destination };

/** The operator's and the repository's allow-lists, applied to every hop of a fetch. */
export interface DestinationRules {
  /** Both lists in canonical text (unset as `*`): what a cached page may be shared under. */
  readonly key: string;
  /** The scheme, credentials, host and port of a URL; throws fetch_refused naming the rule. */
  checkUrl(url: URL): Destination;
  /** One address the destination resolved to; throws fetch_refused unless it is public or opened by the operator. */
  checkAddress(destination: Destination, address: string): void;
}

/**
 * Rules from the operator's TACKLE_FETCH_ALLOW (null: unset, any public host; `[]`: WebFetch off)
 * narrowed by the repository's `web_fetch.allow` (undefined: no narrowing; `[]`: off): a URL must
 * match both. Only the operator's exact `ip:port` opens a non-public address: a repository can
 * narrow, never widen. Throws config_invalid for a pattern that does not parse.
 */
export function createDestinationRules(operator: readonly string[] | null, repo?: readonly string[]): DestinationRules {
  const operatorParsed = parsePatterns(operator ?? ["*"], "TACKLE_FETCH_ALLOW");
  const repoParsed = repo === undefined ? null : parsePatterns(repo, "web_fetch.allow");
  const operatorPatterns = operatorParsed.map((parsed) => parsed.pattern);
  const repoPatterns = repoParsed?.map((parsed) => parsed.pattern) ?? null;
  const opened = new Set(operatorPatterns.flatMap((pattern) => (pattern.kind === "address" ? [`${pattern.address}:${pattern.port}`] : [])));
  const key = JSON.stringify([operatorParsed.map((parsed) => parsed.text), repoParsed?.map((parsed) => parsed.text) ?? null]);

  const checkUrl = (url: URL): Destination => {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      refuse(`the scheme ${url.protocol} is refused: WebFetch reads http and https URLs only`);
    }
    if (url.username !== "" || url.password !== "") refuse("URLs with credentials (user:password@) are refused");
    if (operatorPatterns.length === 0) refuse("WebFetch is off: the operator set TACKLE_FETCH_ALLOW to an empty list");
    if (repoPatterns !== null && repoPatterns.length === 0) refuse("WebFetch is off for this repository: its web_fetch.allow is an empty list");
    const destination = urlDestination(url);
    const shown = `${url.hostname}:${destination.port}`;
    const portNote = isStandardPort(destination.port) ? "" : " (a pattern without a port allows ports 80 and 443 only)";
    if (!operatorPatterns.some((pattern) => matchesHostPattern(pattern, destination))) {
      refuse(`${shown} is not in the operator's allow-list (TACKLE_FETCH_ALLOW)${portNote}`);
    }
    if (repoPatterns !== null && !repoPatterns.some((pattern) => matchesHostPattern(pattern, destination))) {
      refuse(`${shown} is not in this repository's allow-list (web_fetch.allow in .github/tackle.yml)${portNote}`);
    }
    return destination;
  };

  const checkAddress = (destination: Destination, address: string): void => {
    const why = classifyAddress(address);
    if (why === null || opened.has(`${canonicalAddress(address)}:${destination.port}`)) return;
    const where = destination.literal ? `${address} is` : `${destination.host} resolves to ${address},`;
    refuse(`${where} ${why}: only an exact ip:port in TACKLE_FETCH_ALLOW opens such a destination`);
  };

  return { key, checkUrl, checkAddress };
}

function parsePatterns(texts: readonly string[], source: string): { pattern: HostPattern; text: string }[] {
  return texts.map((text) => {
    const parsed = parseHostPattern(text);
    if (!parsed.ok) throw new TackleError("config_invalid", `${source}: ${parsed.problem}`);
    return parsed;
  });
}

function refuse(message: string): never {
  throw new TackleError("fetch_refused", message);
}
