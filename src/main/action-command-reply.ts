// The Action's answer to a command. Commands that act on a running job mean nothing here: each run is
// its own workflow job. Every mention and command in these texts is a code span, which the trigger
// parser skips (src/triggers/parse-command.ts): a reply posted with a personal access token comes back
// as a comment by a user, and must not start a job of its own.
import { REPO_CONFIG_PATH } from "../config/index.js";
import { helpText, type CommandTrigger } from "../triggers/index.js";
import { code, md, type SurfaceMarkdown } from "../util/surface-markdown.js";

export function actionCommandReply(command: CommandTrigger["command"], botName: string): SurfaceMarkdown {
  const typed = (prefix: "/" | "@", words = "") => code(`${prefix}${botName}${words}`);
  switch (command) {
    case "help":
    case "unknown":
      return helpText(botName);
    case "stop":
      return md`${typed("/", " stop")} does nothing here: Tackle runs as a GitHub Action, inside the workflow run. Cancel that run from the Actions tab to stop it.`;
    case "retry":
      return md`${typed("/", " retry")} does nothing here: Tackle runs as a GitHub Action. Re-run the workflow from the Actions tab, or mention ${typed("@")} again with what to do.`;
    case "approve":
    case "deny":
      return md`${typed("/", ` ${command}`)} does nothing here: Tackle runs as a GitHub Action and cannot wait for an answer, so it denies risky steps on its own. Mention ${typed("@")} again with clearer instructions, or change ${code(REPO_CONFIG_PATH)}.`;
  }
}
