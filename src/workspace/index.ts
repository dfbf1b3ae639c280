/** The only layer that spawns processes or touches the disk (transcripts aside). */
export { createRepoCache, type PrepareOptions, type RepoCache, type RepoCacheOptions } from "./repo-cache.js";
export type { RepoCacheStats } from "./cache-cleanup.js";
export { openLocalWorkspace, type LocalWorkspaceOptions } from "./local-workspace.js";
export { DEFAULT_AUTHOR, type CommitAuthor, type Workspace } from "./workspace.js";
export { detectSandbox, type SandboxSupport } from "./detect-sandbox.js";
export { setUpSandbox } from "./set-up-sandbox.js";
export {
  createSandboxExec,
  type ArgvResult,
  type Sandbox,
  type SandboxIdentity,
  type SandboxLimits,
  type SandboxMode,
  type SandboxOptions,
} from "./sandbox.js";
export { createPathGuard, type GuardedFs } from "./path-guard.js";
export { createSearch } from "./search.js";
export { createGitPort, type GitPortOptions } from "./git-port.js";
export { assertPushAllowed, isPushAllowed, parseRemoteUrl, validateBranchName } from "./git-host.js";
