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
export {
  DEFAULT_MODEL,
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
