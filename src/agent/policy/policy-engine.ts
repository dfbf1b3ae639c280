import { BLOCKED_REGEX_MAX_INPUT, MAX_PUBLISHED_FILE_BYTES } from "../../config/index.js";
import { errorMessage, TackleError } from "../../errors/index.js";
import type { FsPort } from "../ports.js";
import type { CanonicalAction } from "../tools/canonical-action.js";
import type { PolicyDecision, ToolContext, ToolEffects } from "../tools/tool.js";
import { bashPathOperands, bashWriteTargets, type BlockedVerdict, blockedCommandMatch, catastrophicReason, riskyReason } from "./bash-rules.js";
import { pushDiffVerdict } from "./check-push-diff.js";
import { createDiffSizeTracker, type DiffSizeTracker } from "./diff-size-tracker.js";
import { MAX_SHELL_DEPTH, parseShellLayers } from "./parse-shell.js";
import { resolvePolicyConfig, type PolicyConfig, type ResolvedPolicyConfig } from "./policy-config.js";
import { createProtectedPaths, normalizeRepoPath, type ProtectedPaths } from "./protected-paths.js";
import { isSensitivePath } from "./sensitive-paths.js";

/**
 * Decides, before a tool runs, whether a call is allowed, needs a maintainer's approval, or is
 * refused, from what the tool declares it touches (its `effects`), never from its name. Each
 * declared effect has its rule — commands: catastrophic, the repository's config, protected
 * targets, risky, sensitive files; writes: protected paths, the diff cap, sensitive files; commits:
 * protected paths; publishing: the branch's whole diff; reads: sensitive files — and a refusal from
 * any rule beats a question from another. It sees a call only as its canonical action (a Monitor or a
 * skill's tool is the Bash command it runs, CallMcpTool the MCP tool it calls), from the schema-parsed input.
 */
export interface PolicyEngine {
  check(action: CanonicalAction, ctx: ToolContext): Promise<PolicyDecision>;
  /**
   * Told, by the registry, who wrote each result's text beyond the repository and its maintainers
   * (outsideSourcesOf): from then on a memory write asks. One engine per job, shared with its subagents.
   */
  noteOutsideText(sources: readonly string[]): void;
}

const ALLOW: PolicyDecision = { action: "allow" };

/** Approvals of a large diff are remembered under this key, so a maintainer is asked once. */
export const DIFF_SIZE_APPROVAL_KEY = "diff-size";

/** Create one engine per job: it keeps the branch's diff size between writes. */
export function createPolicyEngine(config: PolicyConfig = {}): PolicyEngine {
  const resolved = resolvePolicyConfig(config);
  const protectedPaths = createProtectedPaths(resolved.protectedPaths);
  const trackers = new WeakMap<FsPort, DiffSizeTracker>();
  const outsideText = new Set<string>();
  const trackerFor = (fs: FsPort): DiffSizeTracker => {
    let tracker = trackers.get(fs);
    if (tracker === undefined) {
      tracker = createDiffSizeTracker();
      trackers.set(fs, tracker);
    }
    return tracker;
  };

  return {
    check: (action, ctx) => untilAborted(decide(action, ctx), ctx.signal),
    noteOutsideText(sources) {
      for (const source of sources) outsideText.add(source);
    },
  };

  async function decide(action: CanonicalAction, ctx: ToolContext): Promise<PolicyDecision> {
    const rules: Rules = { config: resolved, protectedPaths, diffSize: trackerFor(ctx.fs) };
    const { effects, input } = action;
    if (changesUnseen(effects)) rules.diffSize.forget();
    const decisions: PolicyDecision[] = [];
    if (effects.runs) decisions.push(checkBash(rules, stringField(input, effects.runs.command) ?? "", ctx));
    if (effects.writes) decisions.push(await checkFileWrite(rules, action.name, effects.writes, input, ctx));
    if (typeof effects.git === "object") decisions.push(await checkCommit(protectedPaths, stringArrayField(input, effects.git.commit), ctx));
    if (effects.publishes) decisions.push(await checkPublish(rules, ctx));
    if (effects.reads && effects.reads.names !== true) decisions.push(await checkFileRead(stringField(input, effects.reads.path), ctx));
    if (effects.memory === "write") decisions.push(checkMemoryWrite([...new Set([...(await resolved.untrustedSources()), ...outsideText])]));
    return decisions.find((decision) => decision.action === "deny") ?? decisions.find((decision) => decision.action === "ask") ?? ALLOW;
  }
}

/**
 * The check, or a rejection once the job's signal aborts (its stop or its deadline): whatever a
 * rule still waits on (git in the sandbox, a read) no longer holds the job's tool call.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new TackleError("aborted", "the policy check was stopped: the job was cancelled"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new TackleError("aborted", "the policy check was stopped: the job was cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Effects that may change the worktree without the engine counting the change line by line. */
function changesUnseen(effects: ToolEffects): boolean {
  return (
    effects.runs !== undefined ||
    (effects.git !== undefined && effects.git !== "read") ||
    effects.publishes === true ||
    effects.delegates === true ||
    effects.runsSkillCommand !== undefined ||
    (effects.writes !== undefined && effects.writes.preview === undefined)
  );
}

/**
 * A memory outlives the job and steers later ones: when text from outside the repository and its
 * maintainers reached this job (the thread's outsiders, web pages, untrusted MCP servers, …), it may
 * be what asks for the write (memory poisoning), so a maintainer decides.
 */
function checkMemoryWrite(sources: readonly string[]): PolicyDecision {
  if (sources.length === 0) return ALLOW;
  const named = sources.slice(0, 5).join(", ");
  return {
    action: "ask",
    reason: `a memory outlives this job, and text from outside the maintainers reached it (${named}${sources.length > 5 ? ", …" : ""})`,
  };
}

interface Rules {
  config: ResolvedPolicyConfig;
  protectedPaths: ProtectedPaths;
  diffSize: DiffSizeTracker;
}

function checkBash(rules: Rules, command: string, ctx: ToolContext): PolicyDecision {
  const parsed = parseShellLayers(command);
  const { commands } = parsed;
  const catastrophic = catastrophicReason(command, commands);
  if (catastrophic !== undefined) {
    return { action: "deny", reason: `refused: ${catastrophic} could destroy the machine or the user's files; this is never allowed` };
  }
  const blocked = blockedCommandMatch(command, parsed, rules.config.blockedCommands);
  if (blocked !== undefined) return { action: "deny", reason: blockedReason(blocked) };
  for (const target of bashWriteTargets(commands)) {
    const relative = normalizeRepoPath(target.path, ctx.fs.root);
    if (relative === undefined) continue;
    if (shellTargetIsProtected(rules.protectedPaths, relative, target.destructive)) {
      return protectedDenial(relative === "" ? "." : relative, rules.protectedPaths);
    }
  }
  const risky = riskyReason(command, commands);
  if (risky !== undefined) return { action: "ask", reason: `the command ${risky}` };
  const sensitive = bashPathOperands(commands)
    .map((operand) => normalizeRepoPath(operand, ctx.fs.root) ?? operand)
    .find(isSensitivePath);
  if (sensitive !== undefined) return sensitiveQuestion(sensitive);
  return ALLOW;
}

/** What the model is told when blocked_commands refuse a command, with what it can do instead. */
function blockedReason(verdict: BlockedVerdict): string {
  switch (verdict.kind) {
    case "blocked":
      return `the repository's blocked_commands forbid "${verdict.entry}"; do without it`;
    case "too_long":
      return `the repository's blocked_commands hold regular expressions, which are checked only on commands of at most ${BLOCKED_REGEX_MAX_INPUT} characters: write the script to a file (Write) and run the file`;
    case "too_costly":
      return `the repository's blocked_commands hold regular expressions, and checking them on this command's ${verdict.texts} texts (the whole line, each simple command and each nested \`bash -c\` or \`eval\` script: ${verdict.characters} characters) would take too long: run it as shorter commands, without nesting shells, or write the script to a file (Write) and run the file`;
    case "too_deep":
      return `the command nests shells (\`bash -c\`, \`eval\`, a heredoc fed to a shell) more than ${MAX_SHELL_DEPTH} deep, past what the repository's blocked_commands can be checked on: run the inner command itself, or write the script to a file (Write) and run the file`;
  }
}

/**
 * A Bash write target (maybe with wildcards): a destructive one (rm, mv, …) also counts when it
 * takes a protected path with it, and a wildcard may expand to anything below the literal
 * directory before it (`rm .github/workflows/*.yml`).
 */
function shellTargetIsProtected(protectedPaths: ProtectedPaths, operand: string, destructive: boolean): boolean {
  if (protectedPaths.matches(operand)) return true;
  const first = operand.search(/[*?[{]/);
  if (first === -1) return destructive && protectedPaths.removedWith(operand);
  const slash = operand.lastIndexOf("/", first);
  return protectedPaths.removedWith(slash === -1 ? "" : operand.slice(0, slash));
}

async function checkFileWrite(
  rules: Rules,
  toolName: string,
  writes: NonNullable<ToolEffects["writes"]>,
  input: unknown,
  ctx: ToolContext,
): Promise<PolicyDecision> {
  const filePath = stringField(input, writes.path);
  if (filePath === undefined) return ALLOW;
  const { paths, absolute } = await candidatePaths(filePath, "write", ctx);
  const hit = paths.find((relative) => rules.protectedPaths.matches(relative));
  if (hit !== undefined) return protectedDenial(hit, rules.protectedPaths);

  if (writes.preview !== undefined && absolute !== undefined) {
    const diff = await checkDiffSize(rules, toolName, writes.preview, input, absolute, ctx);
    if (diff.action !== "allow") return diff;
  }

  const sensitive = paths.find(isSensitivePath);
  return sensitive === undefined ? ALLOW : sensitiveQuestion(sensitive);
}

async function checkFileRead(filePath: string | undefined, ctx: ToolContext): Promise<PolicyDecision> {
  if (filePath === undefined) return ALLOW;
  const { paths } = await candidatePaths(filePath, "read", ctx);
  const sensitive = paths.find(isSensitivePath);
  return sensitive === undefined ? ALLOW : sensitiveQuestion(sensitive);
}

async function checkCommit(protectedPaths: ProtectedPaths, requested: string[] | undefined, ctx: ToolContext): Promise<PolicyDecision> {
  const files =
    requested !== undefined
      ? requested.map((file) => normalizeRepoPath(file, ctx.fs.root) ?? file)
      : (await ctx.git.status()).flatMap((entry) => entry.path.split(" -> "));
  const touched = files.filter((file) => protectedPaths.matches(file));
  if (touched.length === 0) return ALLOW;
  return {
    action: "deny",
    reason:
      `the commit would include protected path(s) ${touched.join(", ")}, which cannot be pushed; ` +
      `undo those changes first (Bash: git checkout -- <path>, or delete new files), or pass files without them`,
  };
}

async function checkPublish(rules: Rules, ctx: ToolContext): Promise<PolicyDecision> {
  let diffStat: { files: string[]; lines: number };
  try {
    diffStat = await ctx.git.diffStat(ctx.baseBranch);
  } catch (error) {
    // The host re-checks before pushing; a missing base here is the pulls port's to report.
    ctx.logger.warn({ err: errorMessage(error) }, "policy: diffStat failed before create_pull_request");
    return ALLOW;
  }
  const result = pushDiffVerdict(rules.config, rules.protectedPaths, diffStat);
  return result.action === "refuse" ? { action: "deny", reason: result.reason } : ALLOW;
}

/**
 * Projects the branch's diff with this write: counted on the host from the file's content before
 * and after (no git run), measured again with git only when the projection would refuse or ask.
 */
async function checkDiffSize(
  rules: Rules,
  toolName: string,
  preview: NonNullable<NonNullable<ToolEffects["writes"]>["preview"]>,
  input: unknown,
  absolutePath: string,
  ctx: ToolContext,
): Promise<PolicyDecision> {
  const { maxDiffLines, requireApprovalAbove } = rules.config;
  if (maxDiffLines === undefined && requireApprovalAbove === undefined) return ALLOW;
  // Through the guarded reader: a FIFO, a device or a symlink out is refused here, never waited on.
  const file = await ctx.fs.read(absolutePath, { maxBytes: MAX_PUBLISHED_FILE_BYTES, signal: ctx.signal });
  // A directory or a file too large to count on the host: the publish check counts it from objects.
  if (file.kind === "directory" || file.kind === "too_large") return ALLOW;
  const current = file.kind === "file" ? file.bytes.toString("utf8") : undefined;
  const next = preview(input as Record<string, unknown>, current);
  if (next === undefined || next === (current ?? "")) return ALLOW;
  const over = (lines: number) => (maxDiffLines !== undefined && lines > maxDiffLines) || (requireApprovalAbove !== undefined && lines > requireApprovalAbove);
  let size: { lines: number; now: number };
  try {
    let estimate = await rules.diffSize.projected(absolutePath, current ?? "", next, ctx);
    if (over(estimate.lines) && !estimate.exact) {
      estimate = await rules.diffSize.measure(absolutePath, current ?? "", next, ctx);
      // Still not exact after git measured: the write is too large to compare on the host, and the publish check counts it from objects.
      if (!estimate.exact) return ALLOW;
    }
    size = estimate;
  } catch (error) {
    ctx.logger.warn({ err: errorMessage(error) }, "policy: diffStat failed; diff size not checked for this write");
    return ALLOW;
  }
  const { lines: projected, now } = size;
  if (maxDiffLines !== undefined && projected > maxDiffLines) {
    return {
      action: "deny",
      reason:
        `this ${toolName} would take the branch's diff to about ${projected} lines (now ${now}), over the ` +
        `repository's max_diff_lines of ${maxDiffLines}; make a smaller change (to undo earlier changes, use Bash: git checkout -- <path>)`,
    };
  }
  if (requireApprovalAbove !== undefined && projected > requireApprovalAbove) {
    return {
      action: "ask",
      reason: `the branch's diff would grow to about ${projected} lines, above the repository's require_approval_above of ${requireApprovalAbove}`,
      approvalKey: DIFF_SIZE_APPROVAL_KEY,
    };
  }
  return ALLOW;
}

/**
 * The path as written and as resolved (a symlink into `.github/workflows` resolves there); the
 * resolved absolute path is undefined when the path guard refuses it, in which case the tool fails.
 */
async function candidatePaths(filePath: string, intent: "read" | "write", ctx: ToolContext): Promise<{ paths: string[]; absolute: string | undefined }> {
  const paths: string[] = [];
  const raw = normalizeRepoPath(filePath, ctx.fs.root);
  if (raw !== undefined) paths.push(raw);
  let absolute: string | undefined;
  try {
    absolute = await ctx.fs.resolve(filePath, intent);
    const resolved = ctx.fs.relative(absolute);
    if (!paths.includes(resolved)) paths.push(resolved);
  } catch {
    absolute = undefined;
  }
  return { paths, absolute };
}

function protectedDenial(relativePath: string, protectedPaths: ProtectedPaths): PolicyDecision {
  return {
    action: "deny",
    reason:
      `${relativePath} is a protected path (${protectedPaths.globs.join(", ")}) that Tackle may not change; ` +
      "leave it as it is and describe the change it needs in the PR body instead",
  };
}

function sensitiveQuestion(relativePath: string): PolicyDecision {
  return { action: "ask", reason: `${relativePath} usually holds credentials` };
}

function stringField(input: unknown, key: string): string | undefined {
  if (input === null || typeof input !== "object") return undefined;
  const value = (input as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}

function stringArrayField(input: unknown, key: string): string[] | undefined {
  if (input === null || typeof input !== "object") return undefined;
  const value = (input as Record<string, unknown>)[key];
  return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined;
}
