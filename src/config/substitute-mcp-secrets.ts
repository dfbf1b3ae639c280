/**
 * A repository's MCP `env` or `headers` values with `${TACKLE_SECRET_*}` replaced from the operator's
 * environment; any other `${…}` stays literal, so a repository can never name the model key or any
 * variable the operator did not mark for it. Returns the names of secrets that are not set.
 */
export function substituteMcpSecrets(
  values: Readonly<Record<string, string>> | undefined,
  operatorEnv: Readonly<Record<string, string | undefined>>,
): { values: Record<string, string>; missing: string[] } {
  const missing: string[] = [];
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    out[key] = value.replace(/\$\{(TACKLE_SECRET_[A-Za-z0-9_]+)\}/g, (literal, name: string) => {
      const secret = operatorEnv[name];
      if (secret === undefined || secret === "") {
        missing.push(name);
        return literal;
      }
      return secret;
    });
  }
  return { values: out, missing: [...new Set(missing)] };
}

/** The operator's TACKLE_SECRET_* variables: what MCP values may name, and what every job redacts. */
export function operatorMcpSecrets(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[0].startsWith("TACKLE_SECRET_") && Boolean(entry[1])));
}
