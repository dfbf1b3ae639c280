/**
 * The fakes' public surface: what integration tests and benchmarks import. Everything else in
 * this folder is an implementation detail of one fake.
 */
export { startFakeGitHub, type FakeGitHub, type RequestLogEntry } from "./fake-github.js";
export { startFakeAnthropic, type FakeAnthropic, type RecordedRequest, type ScriptedBlock, type ScriptedModel, type ScriptedTurn } from "./fake-anthropic.js";
export { computeUsage, createCacheState } from "./compute-usage.js";
export { startFakeOpenAI, type FakeOpenAI } from "./fake-openai.js";
export {
  issueCommentCreatedPayload,
  issuesAssignedPayload,
  issuesLabeledPayload,
  pullRequestReviewCommentCreatedPayload,
  pullRequestReviewSubmittedPayload,
  sendWebhook,
  type WebhookResponse,
} from "./webhooks.js";

export { cleanGitEnv } from "./clean-git-env.js";
export { startFakeDockerDaemon, type FakeDockerDaemon } from "./fake-docker-daemon.js";
export { startFakeNpmRegistry } from "./fake-npm-registry.js";
