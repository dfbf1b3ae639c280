// Whether the Action may run a job, and how its commands are boxed. Without bubblewrap they would run
// in the step's own environment, with network, where the model key and the workflow token are
// readable through /proc: so the Action sets bubblewrap up itself where it can (a GitHub-hosted
// runner, whose sudo needs no password) and otherwise refuses unless the workflow opted out.
import { detectSandbox, setUpSandbox, type SandboxMode } from "../workspace/index.js";
import { md, type SurfaceMarkdown } from "../util/surface-markdown.js";

export type ActionSandbox =
  /** `summary` is one sentence for the log and the step summary. */
  | { mode: SandboxMode; summary: string }
  /** Refused: `summary` is the step's failure message; `reply` is for the issue, where anyone can read it. */
  | { mode: null; summary: string; reply: SurfaceMarkdown };

export interface ChooseActionSandboxOptions {
  /** The `allow_unsandboxed` input. */
  allowUnsandboxed: boolean;
  /** RUNNER_ENVIRONMENT is `github-hosted`: sudo works without a password, so bubblewrap can be set up. */
  githubHosted: boolean;
  /** Log lines, and the one warning annotation of an unsandboxed run. */
  log: { info(line: string): void; warning(text: string): void };
}

/**
 * Detects bubblewrap; on a GitHub-hosted runner, tries to set it up when it does not work; then
 * decides. Logs what happened; the caller fails the step with `summary` when it refuses.
 */
export async function chooseActionSandbox(options: ChooseActionSandboxOptions): Promise<ActionSandbox> {
  const { log } = options;
  let support = await detectSandbox();
  let setUp = false;
  if (!support.available && options.githubHosted) {
    log.info(`tackle: bubblewrap is not available (${support.detail}); setting it up on this GitHub-hosted runner`);
    support = await setUpSandbox(support, (line) => log.info(`tackle: ${line}`));
    setUp = true;
  }
  if (support.available) {
    const text = `Agent commands run in the bubblewrap sandbox${setUp ? ", which the Action set up on this runner" : ""} (${support.detail}).`;
    log.info(`tackle: ${text}`);
    return { mode: "bwrap", summary: text };
  }
  if (options.allowUnsandboxed) {
    const text = `bubblewrap is not available (${support.detail})${setUp ? " and could not be set up" : ""}; \`allow_unsandboxed\` is true, so agent commands run WITHOUT a sandbox, in this step's own environment.`;
    log.warning(text);
    return { mode: "off", summary: `⚠️ ${text}` };
  }
  const text =
    `Tackle refused to run: bubblewrap is not available (${support.detail})${setUp ? " and could not be set up" : ""}. ` +
    "Without a sandbox, agent commands would run in this step's own environment, with network, where the model key and the workflow token are readable. " +
    (setUp ? "" : "Run the job on a GitHub-hosted Ubuntu runner (Tackle sets bubblewrap up there), ") +
    `${setUp ? "Install" : "install"} bubblewrap on this runner, or set \`allow_unsandboxed: true\` on the Tackle step to run without a sandbox.`;
  const reply = md`Tackle did not run: this workflow's runner has no working sandbox for the agent's commands, and the workflow does not allow running without one. \
A maintainer can run the job on a GitHub-hosted Ubuntu runner, install bubblewrap on the runner, \
or set \`allow_unsandboxed: true\` on the Tackle step (commands then run where the step's secrets are readable). The workflow run's log says more.`;
  return { mode: null, summary: text, reply };
}
