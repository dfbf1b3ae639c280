export {
  DEFAULT_PROTECTED_PATHS,
  MAX_PUBLISHED_FILE_BYTES,
  REPO_CONFIG_PATH,
  defaultRepoConfig,
  parseRepoConfig,
  type RepoConfig,
  type RepoConfigResult,
} from "./repo-config.js";
export { resolveModel, type ModelChoice, type ModelSettings } from "./resolve-model.js";
export { buildAppManifest, type AppManifest } from "./app-manifest.js";
export { formatDotEnv, withDotEnv } from "./dot-env.js";
export {
  DEFAULT_MODEL,
  DEFAULT_WEBHOOK_PATH,
  loadEnv,
  parseEnv,
  type AppCredentials,
  type EnvMode,
  type EnvResult,
  type EnvVars,
  type LoadEnvOptions,
  type LogLevel,
  type TackleEnv,
} from "./env.js";
