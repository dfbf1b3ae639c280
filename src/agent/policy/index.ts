export { createPolicyEngine, DIFF_SIZE_APPROVAL_KEY, type PolicyEngine } from "./policy-engine.js";
export { DEFAULT_PROTECTED_PATHS, resolvePolicyConfig, type PolicyConfig, type ResolvedPolicyConfig } from "./policy-config.js";
export { checkPublishedChange } from "./check-push-diff.js";
export { denyingApprovalHandler, type ApprovalAnswer, type ApprovalHandler, type ApprovalQuestion } from "./approval.js";
export { isSensitivePath } from "./sensitive-paths.js";
export { createProtectedPaths, normalizeRepoPath, type ProtectedPaths } from "./protected-paths.js";
export type { PolicyDecision } from "../tools/tool.js";
