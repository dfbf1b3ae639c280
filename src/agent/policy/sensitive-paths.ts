import { createGlobMatcher } from "../../util/glob-machine.js";

/** Files that usually hold credentials; reading or writing one needs a maintainer's approval. */
const SENSITIVE_GLOBS: readonly string[] = [
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  "*.ppk",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  ".env",
  ".env.*",
  ".npmrc",
  ".yarnrc.yml",
  ".pypirc",
  ".netrc",
  "_netrc",
  ".git-credentials",
  ".htpasswd",
  "credentials",
  "credentials.json",
  "credentials.y{a,}ml",
  "*.tfvars",
];

/** Templates meant to be committed, and public keys. */
const HARMLESS_GLOBS: readonly string[] = [".env.{example,sample,template,dist,defaults}", "*.pub"];

const isSensitive = createGlobMatcher(SENSITIVE_GLOBS, { matchBase: true });
const isHarmless = createGlobMatcher(HARMLESS_GLOBS, { matchBase: true });

/** Whether a repository-relative path names a file that usually holds credentials. */
export function isSensitivePath(relativePath: string): boolean {
  return isSensitive(relativePath) && !isHarmless(relativePath);
}
