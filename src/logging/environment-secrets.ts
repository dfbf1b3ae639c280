import { urlSecrets } from "./mask-url.js";

/**
 * Variables whose values are credentials, masked by value in every log line and `doctor` line: the
 * contract's keys and tokens and each SDK's own (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `PRIVATE_KEY`,
 * `*_PASSWORD`), not the paths or files that point at them.
 */
const SECRET_NAME = /(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)(?:_|$)/i;
// GOOGLE_APPLICATION_CREDENTIALS names a file too: the secrets in it are masked by value (modelSecretsFor).
// An operator secret's scope (TACKLE_SECRET_<NAME>_REPOS, _HOSTS) lists repositories and hosts, not a secret.
const NOT_SECRET_NAME = /_(?:PATH|FILE|DIR)$|^GOOGLE_APPLICATION_CREDENTIALS$|^TACKLE_SECRET_\w+_(?:REPOS|HOSTS)$/i;

/**
 * The process's credentials, to mask by value: the values of the variables named like secrets, and
 * the passwords inside any variable holding a URL (`REDIS_URL=redis://:password@host`).
 */
export function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env).flatMap(([name, value]) => {
    if (value === undefined) return [];
    if (SECRET_NAME.test(name) && !NOT_SECRET_NAME.test(name)) return [value];
    return urlSecrets(value);
  });
}
