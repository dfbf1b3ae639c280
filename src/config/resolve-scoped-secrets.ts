import { matchesHostPattern, urlDestination } from "./match-host-pattern.js";
import type { OperatorSecrets } from "./parse-operator-secrets.js";

declare const scoped: unique symbol;
/**
 * A repository's values with its `${TACKLE_SECRET_*}` filled in under their scope. Only
 * resolveScopedSecrets makes one, and the MCP servers take nothing else: a value that skipped the
 * scope check does not compile.
 */
export type ScopedValues = Readonly<Record<string, string>> & { readonly [scoped]: true };

/** Where a repository's values are used. */
export interface SecretUse {
  /** The repository whose config names the values, as GitHub spells it (compared case-insensitively). */
  repo: { owner: string; name: string };
  /** Where they are sent: an HTTP MCP server's URL (its headers). Absent for a sandboxed process's `env`, which has no network. */
  url?: URL;
  /** The config key holding them, for the problem text: `mcp_servers.docs.headers`. */
  where: string;
}

export type ScopedResult = { ok: true; values: ScopedValues } | { ok: false; problems: string[] };

const REFERENCE = /\$\{(TACKLE_SECRET_[A-Za-z0-9_]+)\}/g;

/**
 * The one place a repository's config gets an operator secret: `${TACKLE_SECRET_<NAME>}` is filled in
 * only when `TACKLE_SECRET_<NAME>_REPOS` lists the repository and, for a URL, `_HOSTS` lists its
 * host; any other `${…}` stays literal. A secret out of scope (or not set: the same words, so a
 * repository cannot learn which secrets exist) is a problem naming it, and no value is returned, so
 * nothing is sent. Local runs have no `owner/name` and start no MCP servers: they never call this.
 */
export function resolveScopedSecrets(values: Readonly<Record<string, string>> | undefined, use: SecretUse, secrets: OperatorSecrets): ScopedResult {
  const problems = new Set<string>();
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    out[key] = value.replace(REFERENCE, (literal, name: string) => {
      const problem = scopeProblem(name, `${use.where}.${key}`, use, secrets);
      if (problem !== null) problems.add(problem);
      return problem === null ? secrets.get(name)!.value : literal;
    });
  }
  return problems.size > 0 ? { ok: false, problems: [...problems] } : { ok: true, values: out as ScopedValues };
}

function scopeProblem(name: string, where: string, use: SecretUse, secrets: OperatorSecrets): string | null {
  const secret = secrets.get(name);
  const repo = `${use.repo.owner}/${use.repo.name}`.toLowerCase();
  const owner = `${use.repo.owner.toLowerCase()}/*`;
  if (secret === undefined || !secret.repos.some((pattern) => pattern === repo || pattern === owner)) {
    return `\`${where}\` names \`${name}\`, which is not available to ${use.repo.owner}/${use.repo.name}: the operator must set it and list the repository in \`${name}_REPOS\``;
  }
  if (use.url === undefined) return null;
  const destination = urlDestination(use.url);
  const shown = `${use.url.hostname}:${destination.port}`;
  const matched = secret.hosts.find((pattern) => matchesHostPattern(pattern, destination));
  if (matched === undefined) return `\`${where}\` names \`${name}\`, which may not be sent to ${shown}: that host is not in \`${name}_HOSTS\``;
  // A host name is reached over the internet: only an operator's exact ip:port (its own network) may be plain http.
  if (use.url.protocol === "http:" && matched.kind !== "address") {
    return `\`${where}\` names \`${name}\`, which may not be sent to ${shown} over plain http: use https (only an \`ip:port\` in \`${name}_HOSTS\` takes http)`;
  }
  return null;
}
