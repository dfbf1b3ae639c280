export {
  DEFAULT_MAX_DIFF_BYTES,
  DEFAULT_PROTECTED_PATHS,
  MAX_PUBLISHED_FILE_BYTES,
  MAX_SYMLINK_TARGET_BYTES,
  MAX_TREE_SYMLINKS,
  REPO_CONFIG_PATH,
  defaultRepoConfig,
  parseRepoConfig,
  type RepoConfig,
} from "./repo-config.js";
export { disallowedAgentModels, resolveModel, type ModelSettings } from "./resolve-model.js";
export { buildAppManifest, type AppManifest } from "./app-manifest.js";
export { formatDotEnv, withDotEnv } from "./dot-env.js";
export {
  DEFAULT_MODELS,
  DEFAULT_WEBHOOK_PATH,
  loadBotName,
  loadEnv,
  MODEL_PROVIDERS,
  missingModelSettings,
  parseEnv,
  type EnvVars,
  type ModelProvider,
  type TackleEnv,
} from "./env.js";
export type { ConfiguredPrice } from "./parse-model-prices.js";
export { parseHostPattern, type HostPattern } from "./parse-fetch-allow.js";
export { canonicalAddress, isStandardPort, matchesHostPattern, urlDestination, type Destination } from "./match-host-pattern.js";
export { parseOperatorSecrets, type OperatorSecrets } from "./parse-operator-secrets.js";
export { resolveScopedSecrets, type ScopedValues } from "./resolve-scoped-secrets.js";
export {
  BLOCKED_CHECK_BUDGET,
  BLOCKED_REGEX_MAX_ENTRIES,
  BLOCKED_REGEX_MAX_INPUT,
  type BlockedCommandEntry,
  blockedRegexCost,
  parseBlockedCommand,
} from "./blocked-command-regex.js";
