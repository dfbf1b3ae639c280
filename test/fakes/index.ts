/**
 * The fakes' public surface: what integration tests and benchmarks import. Everything else in
 * this folder is an implementation detail of one fake.
 */
export {
  startFakeGitHub,
  type AddRepoOptions,
  type FailureRule,
  type FakeGitHub,
  type FakeGitHubOptions,
  type RepoInfo,
  type RequestFilter,
  type RequestLogEntry,
  type Role,
  type SeedFile,
  type TokenPermissions,
} from "./fake-github.js";
export {
  startFakeAnthropic,
  type FakeAnthropic,
  type FakeAnthropicOptions,
  type RecordedRequest,
  type ScriptedBlock,
  type ScriptedError,
  type ScriptedModel,
  type ScriptedReply,
  type ScriptedTurn,
} from "./fake-anthropic.js";
export { computeUsage, countInputTokens, countTokens, createCacheState, type CacheRules, type CacheState, type ComputedUsage } from "./compute-usage.js";
export {
  issueCommentCreatedPayload,
  issuesAssignedPayload,
  issuesLabeledPayload,
  pullRequestReviewCommentCreatedPayload,
  pullRequestReviewSubmittedPayload,
  sendWebhook,
  type RepoContext,
  type SendWebhookOptions,
  type WebhookPayload,
  type WebhookResponse,
} from "./webhooks.js";
export { createAppJwt } from "./app-jwt.js";
export { cleanGitEnv } from "./clean-git-env.js";
export { startFakeDockerDaemon, type FakeDockerDaemon } from "./fake-docker-daemon.js";
export { startFakeNpmRegistry } from "./fake-npm-registry.js";
