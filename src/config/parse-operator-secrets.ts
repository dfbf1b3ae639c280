import { type HostPattern, parseHostPattern } from "./parse-fetch-allow.js";

/** One `TACKLE_SECRET_<NAME>` and where the operator lets it go. */
export interface OperatorSecret {
  value: string;
  /** `TACKLE_SECRET_<NAME>_REPOS`, lower case: `owner/name` or `owner/*`. Empty: no repository may use it. */
  repos: readonly string[];
  /** `TACKLE_SECRET_<NAME>_HOSTS`: the hosts an HTTP MCP header holding it may go to. Empty: none. */
  hosts: readonly HostPattern[];
}

/** The operator's secrets by variable name (`TACKLE_SECRET_DOCS`), scope variables excluded. */
export type OperatorSecrets = ReadonlyMap<string, OperatorSecret>;

export interface ParsedOperatorSecrets {
  secrets: OperatorSecrets;
  /** Scope variables that do not parse, each naming its variable and entry. */
  problems: string[];
  /** Secrets without `_REPOS` (no repository may use them) and scopes without their secret: for `tackle doctor`. */
  warnings: string[];
}

const PREFIX = "TACKLE_SECRET_";
/** A name ending so is a secret's scope, never a secret: a repository cannot name it. */
const SCOPE = /_(REPOS|HOSTS)$/;
/** GitHub's owner names; repository names also take `.` and `_`; `owner/*` for all of one owner's. */
const REPO_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\/(?:\*|[a-z0-9._-]+)$/;

/**
 * The operator's `TACKLE_SECRET_*` variables with their scopes. Scope is deny by default: a secret
 * without `_REPOS` is usable by no repository, one without `_HOSTS` goes in no HTTP header. `*` is
 * refused in both, so a secret always names where it goes.
 */
export function parseOperatorSecrets(env: Readonly<Record<string, string | undefined>>): ParsedOperatorSecrets {
  const secrets = new Map<string, OperatorSecret>();
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(PREFIX) || SCOPE.test(name) || !value) continue;
    const repos = parseRepos(`${name}_REPOS`, env[`${name}_REPOS`], problems);
    const hosts = parseHosts(`${name}_HOSTS`, env[`${name}_HOSTS`], problems);
    if (repos.length === 0) warnings.push(`\`${name}\` is set without \`${name}_REPOS\`, so no repository can use it`);
    secrets.set(name, { value, repos, hosts });
  }
  for (const name of Object.keys(env)) {
    const owner = name.replace(SCOPE, "");
    if (name.startsWith(PREFIX) && SCOPE.test(name) && !secrets.has(owner)) warnings.push(`\`${name}\` is set, but \`${owner}\` is not`);
  }
  return { secrets, problems, warnings };
}

function entries(value: string | undefined): string[] {
  return (value ?? "").split(/[\s,]+/).filter((entry) => entry !== "");
}

function parseRepos(variable: string, value: string | undefined, problems: string[]): string[] {
  const repos: string[] = [];
  for (const entry of entries(value)) {
    const pattern = entry.toLowerCase();
    if (REPO_PATTERN.test(pattern)) repos.push(pattern);
    else
      problems.push(
        `\`${variable}\`: \`${entry}\` is not a repository pattern: expected \`owner/name\` or \`owner/*\` (a secret goes only to repositories named here)`,
      );
  }
  return repos;
}

function parseHosts(variable: string, value: string | undefined, problems: string[]): HostPattern[] {
  const hosts: HostPattern[] = [];
  for (const entry of entries(value)) {
    const parsed = parseHostPattern(entry);
    if (!parsed.ok) problems.push(`\`${variable}\`: ${parsed.problem}`);
    else if (parsed.pattern.kind === "any")
      problems.push(`\`${variable}\`: \`*\` would send the secret to any host; name its hosts (\`host\`, \`*.host\`, \`ip:port\`)`);
    else hosts.push(parsed.pattern);
  }
  return hosts;
}
