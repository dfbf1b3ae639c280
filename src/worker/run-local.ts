import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ModelClient } from "../agent/model-client.js";
import type { IssuePort, PublishApproval, PullsPort } from "../agent/ports.js";
import { parseRepoConfig, REPO_CONFIG_PATH } from "../config/index.js";
import { checkPublishedChange } from "../agent/tools/index.js";
import { errorMessage, isTackleError, TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { createRedactor } from "../util/redact.js";
import { sanitizeUntrustedText } from "../util/sanitize-untrusted-text.js";
import { openLocalWorkspace, readUserFilesAtHead } from "../workspace/index.js";
import { checkRepoExtensions, commitLeftovers, INSTRUCTION_FILES, instructionFilesOf, webFetcherFor } from "./repo-checks.js";
import { policyConfigOf, runAgentSession } from "./run-agent-session.js";
import { createTracker } from "./tracker.js";
import { terminalText } from "../util/plain-text.js";

export interface LocalRunOptions {
  repoPath: string;
  task: string;
  model: ModelClient;
  modelName: string;
  home: string;
  sandbox: "bwrap" | "off";
  secrets: string[];
  clock: () => number;
  logger: Logger;
  /** Where progress and ReportToIssue text go (the terminal). */
  print: (line: string) => void;
  signal: AbortSignal;
  /** TACKLE_FETCH_ALLOW as loadEnv reads it (null: unset, any public host). @defaultValue WebFetch is off */
  fetchAllow?: readonly string[] | null;
  /**
   * TACKLE_ALLOWED_MODELS: the models an agent file at HEAD may name besides `modelName` (a cloned
   * repository's agents choose nothing the user did not allow). @defaultValue none besides `modelName`
   */
  allowedModels?: readonly string[];
}

export interface LocalRunResult {
  ok: boolean;
  branch: string;
  patchPath: string | null;
  reason: string;
  commits: number;
}

/** A short, readable, unique branch suffix from the task's first words. */
export function localSlug(task: string, now: number): string {
  const words = task
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim()
    .split(" ")
    .filter(Boolean)
    .slice(0, 6)
    .join("-")
    .slice(0, 40)
    .replace(/-+$/, "");
  return `${words || "task"}-${now.toString(36).slice(-5)}`;
}

/**
 * `tackle run --local`: the same agent session as a GitHub job, in a worktree of the user's
 * repository on a new branch; GetIssue serves the task, ReportToIssue prints, and the work is left
 * on the branch plus a patch file.
 */
export async function runLocal(options: LocalRunOptions): Promise<LocalRunResult> {
  // Every line this run prints goes through here: the model's and the repository's text reach the terminal.
  const print = (line: string) => options.print(terminalText(line));
  const startedAt = options.clock();
  const repoPath = path.resolve(options.repoPath);
  const slug = localSlug(options.task, startedAt);
  const branch = `tackle/local-${slug}`;
  // HEAD's files are what "the default branch" means locally; read as the repository's owner.
  const atHead = await readUserFilesAtHead({ userPath: repoPath, home: options.home, files: [REPO_CONFIG_PATH, ...INSTRUCTION_FILES] });
  const parsed = parseRepoConfig(atHead.get(REPO_CONFIG_PATH) ?? null);
  if (!parsed.ok) {
    throw new TackleError("config_invalid", `invalid ${REPO_CONFIG_PATH}:\n${parsed.problems.map((p) => `  - ${p}`).join("\n")}`);
  }
  for (const warning of parsed.warnings) print(`tackle: warning: ${REPO_CONFIG_PATH}: ${warning}`);
  const instructionFiles = instructionFilesOf(INSTRUCTION_FILES.map((file) => atHead.get(file)));

  const workspace = await openLocalWorkspace({ repoPath, branch, home: options.home, sandbox: options.sandbox, worktrees: true });
  const redact = createRedactor(options.secrets);
  // The task reaches the model as an issue's text does: what a reader would not see is removed.
  const taskText = sanitizeUntrustedText(options.task);
  const title = taskText.split("\n")[0]!.slice(0, 200);
  const issue: IssuePort = {
    async get() {
      return {
        number: 0,
        title,
        body: taskText,
        state: "open",
        labels: [],
        isPullRequest: false,
        comments: [],
        omittedComments: 0,
      };
    },
    async report({ prose, footer }) {
      print(`\n[report] ${redact(prose)}${footer === undefined ? "" : `\n\n${redact(footer)}`}\n`);
      return { url: "printed to the terminal" };
    },
  };
  const policy = policyConfigOf(parsed.config);
  const handOver = (approve?: PublishApproval) => workspace.push({ verify: (change) => checkPublishedChange(policy, change), approve });
  const pulls: PullsPort = {
    async createOrUpdate(_request, _signal, approve) {
      // The same check as before a push; a refusal reaches the model as the tool's error.
      await handOver(approve);
      return {
        number: null,
        url: null,
        created: false,
        message: `there is no remote in a local run; the branch ${branch} in ${repoPath} holds the work and a patch file is written at the end`,
      };
    },
  };
  let lastStep: string | undefined;
  const tracker = createTracker({
    clock: options.clock,
    logger: options.logger,
    minIntervalMs: 0,
    redact,
    sink: {
      // The terminal gets each new step once; the checklist is in the transcript.
      async write(state) {
        if (state.phase !== "working" || state.step === lastStep) return;
        lastStep = state.step;
        print(`  → ${state.step}`);
      },
    },
  });

  print(`tackle: working in ${repoPath} on branch ${branch}${workspace.sandboxed ? "" : " (no sandbox)"}`);
  try {
    // HEAD's agents and skills (its committed files, not the working tree), as a server job takes the default branch's.
    const extensions = await checkRepoExtensions(workspace, { model: options.modelName, allowedModels: [...(options.allowedModels ?? [])] });
    for (const warning of extensions.warnings) print(`tackle: warning: ${warning}`);
    const { problems } = extensions;
    if (problems.length > 0) {
      return { ok: false, branch, patchPath: null, reason: `invalid agent or skill files at HEAD: ${problems.join("; ")}`, commits: 0 };
    }
    const web = webFetcherFor({
      operator: options.fetchAllow === undefined ? undefined : { allow: options.fetchAllow },
      config: parsed.config,
      signal: options.signal,
    });
    const { result, state, hookDenials, approvePublish } = await runAgentSession({
      jobId: `local-${slug}`,
      workspace,
      issue,
      pulls,
      config: parsed.config,
      model: options.model,
      modelName: options.modelName,
      repoFullName: path.basename(repoPath),
      task: { title, body: taskText, kind: "local", actor: "you" },
      instructionFiles,
      tracker,
      transcriptDir: path.join(options.home, "transcripts"),
      redact,
      clock: options.clock,
      startedAt,
      signal: options.signal,
      logger: options.logger,
      extensions,
      ...(web === undefined ? {} : { web }),
    });
    // The other worktrees' branches go with the private repository: only `branch` is handed back.
    const dropped = workspace.worktrees?.branches() ?? [];
    await commitLeftovers(workspace);
    const commits = await workspace.commitsAhead();
    let patchPath: string | null = null;
    if (commits > 0) {
      try {
        await handOver((question) => approvePublish(question, options.signal));
      } catch (error) {
        if (!isTackleError(error, "push_refused")) throw error;
        // Nothing reaches the user's repository: no branch, no patch.
        return { ok: false, branch, patchPath: null, reason: redact(errorMessage(error)), commits: 0 };
      }
      // The user's change is the operator's to read, as transcripts are: in mode off the commands' uid
      // reaches TACKLE_HOME, and a later job's command read every earlier run's patch.
      patchPath = path.join(options.home, "patches", `${slug}.patch`);
      await mkdir(path.dirname(patchPath), { recursive: true, mode: 0o700 });
      await chmod(path.dirname(patchPath), 0o700);
      await writeFile(patchPath, await workspace.formatPatch(), { mode: 0o600 });
      await chmod(patchPath, 0o600);
    }
    if (state.done?.summary) print(`\nSummary: ${redact(state.done.summary)}`);
    if (dropped.length > 0) {
      print(`Dropped with their worktrees (only ${branch} is handed back): ${dropped.join(", ")}`);
    }
    if (hookDenials.length > 0) print(`Hooks denied ${hookDenials.length} tool call(s): ${[...new Set(hookDenials)].join(", ")}`);
    const ok = result.reason === "task_done";
    return { ok, branch, patchPath, reason: result.reasonText ?? result.reason, commits };
  } finally {
    await workspace.dispose();
  }
}
