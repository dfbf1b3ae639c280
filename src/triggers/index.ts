export { parseTrigger, type ParseTriggerOptions } from "./parse-trigger.js";
export {
  COMMAND_NAMES,
  helpText,
  isCommandName,
  mentionsBot,
  parseCommand,
  type CommandName,
  type Invocation,
} from "./parse-command.js";
export {
  isCommandTrigger,
  isTaskTrigger,
  isTrigger,
  jobTriggerOf,
  type Actor,
  type CommandTrigger,
  type CommentKind,
  type CommentTrigger,
  type IgnoredEvent,
  type InvalidEvent,
  type IssueAssignedTrigger,
  type IssueLabeledTrigger,
  type ParseResult,
  type PrReviewCommentTrigger,
  type PrReviewTrigger,
  type PullRequestHead,
  type PullRequestInfo,
  type RepoRef,
  type TaskTrigger,
  type Trigger,
} from "./trigger.js";
export { gateTrigger, type GateDeps, type GateResult, type RepoPermission } from "./gate.js";
export { isAllowedBot } from "../util/is-allowed-bot.js";
export { isTriggerEnabled } from "./is-trigger-enabled.js";
export { sanitizeUntrustedText, type SanitizeOptions } from "../util/sanitize-untrusted-text.js";
export {
  admitTrigger,
  type Admission,
  type AdmitTriggerOptions,
  type CommandAdmission,
  type TaskAdmission,
} from "./admit-trigger.js";
export { jobIdOf } from "./job-id.js";
export { replyToTrigger } from "./reply-to-trigger.js";
