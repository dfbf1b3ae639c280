export { createPolicyEngine, type PolicyEngine } from "./policy-engine.js";
export type { PolicyConfig } from "./policy-config.js";
export { checkPublishedChange } from "./check-push-diff.js";
export { denyingApprovalHandler, type ApprovalAnswer, type ApprovalHandler, type ApprovalQuestion } from "./approval.js";

export { createProtectedPaths } from "./protected-paths.js";
export type { PolicyDecision } from "../tools/tool.js";
