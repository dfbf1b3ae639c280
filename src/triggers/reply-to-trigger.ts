import type { GitHubClient } from "../github/index.js";
import { errorMessage } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import type { SurfaceMarkdown } from "../util/surface-markdown.js";
import type { Trigger } from "./trigger.js";

/** One short comment on the trigger's issue or PR; a failure to post it is logged, never thrown. */
export async function replyToTrigger(github: GitHubClient, trigger: Trigger, body: SurfaceMarkdown, log: Logger): Promise<void> {
  try {
    await github.createComment(trigger.repo, trigger.number, body);
  } catch (error) {
    log.warn({ err: errorMessage(error) }, "could not post the reply");
  }
}
