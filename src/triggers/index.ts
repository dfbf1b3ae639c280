export { parseTrigger } from "./parse-trigger.js";
export { helpText, mentionsBot, parseCommand } from "./parse-command.js";
export { isCommandTrigger, isTaskTrigger, isTrigger, jobTriggerOf, type CommandTrigger, type ParseResult, type TaskTrigger, type Trigger } from "./trigger.js";
export { gateTrigger, type GateDeps } from "./gate.js";

export { isTriggerEnabled } from "./is-trigger-enabled.js";
export { sanitizeUntrustedText } from "../util/sanitize-untrusted-text.js";
export {
  admitTrigger,
  type Admission,
  type AdmitTriggerOptions,
  type CommandAdmission,
  type TaskAdmission,
} from "./admit-trigger.js";
export { jobIdOf } from "./job-id.js";
export { replyToTrigger } from "./reply-to-trigger.js";
