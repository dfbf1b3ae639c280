/** The only layer that spawns processes or touches the disk (transcripts aside). */
export { createRepoCache, type PrepareOptions, type RepoCache } from "./repo-cache.js";

export { openLocalWorkspace } from "./local-workspace.js";
export { readUserFilesAtHead } from "./user-repo.js";
export { DEFAULT_AUTHOR, type Workspace } from "./workspace.js";
export { detectSandbox } from "./detect-sandbox.js";
export { currentIdentity, rootGroupProblem, rootGroupRefusal } from "./root-group.js";
export { setUpSandbox } from "./set-up-sandbox.js";
export { runSudo } from "./run-sudo.js";
export { createSandboxExec, type Sandbox, type SandboxMode } from "./sandbox.js";
export { createPathGuard, type GuardedFs } from "./path-guard.js";
export { createSearch } from "./search.js";
export { formatRepoKey } from "./repo-key.js";
