// Whether the Action may run a job, and how its commands are boxed. Without bubblewrap they would run
// in the step's own environment, with network, where the model key and the workflow token are
// readable through /proc: so the Action sets bubblewrap up itself where it can (a GitHub-hosted
// runner, whose sudo needs no password) and otherwise refuses unless the workflow opted out.
import { appendFile } from "node:fs/promises";
import { detectSandbox, setUpSandbox, type SandboxMode } from "../workspace/index.js";

type Vars = Readonly<Record<string, string | undefined>>;

export type ActionSandbox =
  | { mode: SandboxMode; summary: string }
  /** Refused: `reply` is for the issue, where anyone can read it. */
  | { mode: null; summary: string; reply: string };

/** The `allow_unsandboxed` input, read as the Actions toolkit reads a boolean input. */
export function allowUnsandboxed(vars: Vars): boolean {
  const value = vars.INPUT_ALLOW_UNSANDBOXED?.trim() ?? "";
  if (value === "" || ["false", "False", "FALSE"].includes(value)) return false;
  if (["true", "True", "TRUE"].includes(value)) return true;
  throw new Error(`the allow_unsandboxed input must be true or false, not '${value}'`);
}

/** A workflow command's message is one line: %, CR and LF are escaped as the runner expects. */
function commandData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

/**
 * Detects bubblewrap; on a GitHub-hosted runner, tries to set it up when it does not work; then
 * decides. Prints what happened (`::warning::` when running unsandboxed, `::error::` when refusing)
 * and appends it to the step summary when there is one.
 */
export async function chooseActionSandbox(vars: Vars, print: (line: string) => void): Promise<ActionSandbox> {
  const allow = allowUnsandboxed(vars);
  let support = await detectSandbox();
  let setUp = false;
  if (!support.available && vars.RUNNER_ENVIRONMENT === "github-hosted") {
    print(`tackle: bubblewrap is not available (${support.detail}); setting it up on this GitHub-hosted runner`);
    support = await setUpSandbox(support, (line) => print(`tackle: ${line}`));
    setUp = true;
  }
  let decision: ActionSandbox;
  if (support.available) {
    const text = `Agent commands run in the bubblewrap sandbox${setUp ? ", which the Action set up on this runner" : ""} (${support.detail}).`;
    print(`tackle: ${text}`);
    decision = { mode: "bwrap", summary: text };
  } else if (allow) {
    const text = `bubblewrap is not available (${support.detail})${setUp ? " and could not be set up" : ""}; \`allow_unsandboxed\` is true, so agent commands run WITHOUT a sandbox, in this step's own environment.`;
    print(`::warning::${commandData(text)}`);
    decision = { mode: "off", summary: `⚠️ ${text}` };
  } else {
    const text =
      `Tackle refused to run: bubblewrap is not available (${support.detail})${setUp ? " and could not be set up" : ""}. ` +
      "Without a sandbox, agent commands would run in this step's own environment, with network, where the model key and the workflow token are readable. " +
      (setUp ? "" : "Run the job on a GitHub-hosted Ubuntu runner (Tackle sets bubblewrap up there), ") +
      `${setUp ? "Install" : "install"} bubblewrap on this runner, or set \`allow_unsandboxed: true\` on the Tackle step to run without a sandbox.`;
    print(`::error::${commandData(text)}`);
    const reply =
      "Tackle did not run: this workflow's runner has no working sandbox for the agent's commands, and the workflow does not allow running without one. " +
      "A maintainer can run the job on a GitHub-hosted Ubuntu runner, install bubblewrap on the runner, " +
      "or set `allow_unsandboxed: true` on the Tackle step (commands then run where the step's secrets are readable). The workflow run's log says more.";
    decision = { mode: null, summary: `❌ ${text}`, reply };
  }
  if (vars.GITHUB_STEP_SUMMARY) await appendFile(vars.GITHUB_STEP_SUMMARY, `### Tackle: sandbox\n\n${decision.summary}\n\n`);
  return decision;
}
