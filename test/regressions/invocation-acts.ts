import { parseTrigger } from "../../src/triggers/parse-trigger.js";
import { BOT_LOGIN, issueComment } from "../unit/triggers/webhook-examples.js";

const options = { deliveryId: "d-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };

/**
 * What a writer's comment makes Tackle do, for the prose rule's regression tests: "nothing" (ignored,
 * or the help text: a command further down than the comment's start only gets help), or what it
 * would act on (a command that acts, or a task started with the comment's words).
 */
export function actsOn(body: string): string {
  const result = parseTrigger("issue_comment", issueComment(body), options);
  if (result.kind === "ignored") return "nothing";
  if (result.kind === "command") return result.command === "unknown" || result.command === "help" ? "nothing" : `command ${result.command}`;
  return result.kind;
}
