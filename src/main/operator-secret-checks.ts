import { parseOperatorSecrets } from "../config/index.js";
import type { Check } from "./doctor.js";

const FIX =
  "set TACKLE_SECRET_<NAME>_REPOS to the repositories that may use it (`owner/name` or `owner/*`, comma-separated) and, for an HTTP MCP header, TACKLE_SECRET_<NAME>_HOSTS to its hosts (`host`, `*.host`, `ip:port`)";

/**
 * `tackle doctor`'s line for the operator's TACKLE_SECRET_* variables: scopes that do not parse (the
 * server would not start), and secrets no repository may use (jobs naming them fail). Names only:
 * the values, and the scopes' values, are never shown.
 */
export function operatorSecretChecks(env: NodeJS.ProcessEnv): Check[] {
  const parsed = parseOperatorSecrets(env);
  if (parsed.secrets.size === 0 && parsed.problems.length === 0 && parsed.warnings.length === 0) return [];
  const troubles = [...parsed.problems, ...parsed.warnings];
  if (troubles.length > 0) return [{ name: "operator secrets", ok: false, detail: troubles.join("; "), fix: FIX }];
  const scoped = [...parsed.secrets].map(([name, secret]) => `${name} (repository patterns: ${secret.repos.length}, hosts: ${secret.hosts.length})`);
  return [{ name: "operator secrets", ok: true, detail: scoped.join(", ") }];
}
