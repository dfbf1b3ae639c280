import type { RepoConfig } from "../config/index.js";
import type { Trigger } from "./trigger.js";

/**
 * Whether the repo config lets this trigger start work. Commands always pass: `/tackle stop` must
 * work even where comment triggers are off.
 */
export function isTriggerEnabled(trigger: Trigger, config: RepoConfig["trigger"]): boolean {
  switch (trigger.kind) {
    case "issue_assigned":
      return config.on_assign;
    case "issue_labeled":
      return config.on_label && trigger.label.trim().toLowerCase() === config.label.trim().toLowerCase();
    case "comment":
    case "pr_review":
    case "pr_review_comment":
      return config.on_comment;
    case "command":
      return true;
  }
}
