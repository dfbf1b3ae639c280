import { readFile } from "node:fs/promises";
import { errorMessage } from "../../errors/index.js";
import type { PolicyDecision, ToolContext } from "../tools/tool.js";
import { bashPathOperands, bashWriteTargets, blockedCommandMatch, catastrophicReason, riskyReason } from "./bash-rules.js";
import { pushDiffVerdict } from "./check-push-diff.js";
import { parseShell } from "./parse-shell.js";
import { resolvePolicyConfig, type PolicyConfig, type ResolvedPolicyConfig } from "./policy-config.js";
import { createProtectedPaths, normalizeRepoPath, type ProtectedPaths } from "./protected-paths.js";
import { isSensitivePath } from "./sensitive-paths.js";

/**
 * Decides, before a tool runs, whether a call is allowed, needs a maintainer's approval, or is
 * refused. Checks run in order — catastrophic commands, the repository's config, risky commands,
 * sensitive files — and the first that fires decides. `input` is the schema-parsed input.
 */
export interface PolicyEngine {
  check(toolName: string, input: unknown, ctx: ToolContext): Promise<PolicyDecision>;
}

const ALLOW: PolicyDecision = { action: "allow" };

/** Approvals of a large diff are remembered under this key, so a maintainer is asked once. */
export const DIFF_SIZE_APPROVAL_KEY = "diff-size";

export function createPolicyEngine(config: PolicyConfig = {}): PolicyEngine {
  const resolved = resolvePolicyConfig(config);
  const protectedPaths = createProtectedPaths(resolved.protectedPaths);
  const rules = { config: resolved, protectedPaths };

  return {
    async check(toolName, input, ctx) {
      switch (toolName) {
        case "Bash":
          return checkBash(rules, stringField(input, "command") ?? "", ctx);
        case "Write":
        case "Edit":
          return checkFileWrite(rules, toolName, input, ctx);
        case "Read":
          return checkFileRead(stringField(input, "file_path"), ctx);
        case "Grep":
          return checkFileRead(stringField(input, "path"), ctx);
        case "git_commit":
          return checkCommit(protectedPaths, input, ctx);
        case "create_pull_request":
          return checkPublish(rules, ctx);
        default:
          return ALLOW;
      }
    },
  };
}

interface Rules {
  config: ResolvedPolicyConfig;
  protectedPaths: ProtectedPaths;
}

function checkBash(rules: Rules, command: string, ctx: ToolContext): PolicyDecision {
  const commands = parseShell(command);
  const catastrophic = catastrophicReason(command, commands);
  if (catastrophic !== undefined) {
    return { action: "deny", reason: `refused: ${catastrophic} could destroy the machine or the user's files; this is never allowed` };
  }
  const blocked = blockedCommandMatch(command, commands, rules.config.blockedCommands);
  if (blocked !== undefined) {
    return { action: "deny", reason: `the repository's blocked_commands forbid "${blocked}"; do without it` };
  }
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

async function checkFileWrite(rules: Rules, toolName: "Write" | "Edit", input: unknown, ctx: ToolContext): Promise<PolicyDecision> {
  const filePath = stringField(input, "file_path");
  if (filePath === undefined) return ALLOW;
  const { paths, absolute } = await candidatePaths(filePath, "write", ctx);
  const hit = paths.find((relative) => rules.protectedPaths.matches(relative));
  if (hit !== undefined) return protectedDenial(hit, rules.protectedPaths);

  const diff = await checkDiffSize(rules.config, toolName, input, absolute, ctx);
  if (diff.action !== "allow") return diff;

  const sensitive = paths.find(isSensitivePath);
  return sensitive === undefined ? ALLOW : sensitiveQuestion(sensitive);
}

async function checkFileRead(filePath: string | undefined, ctx: ToolContext): Promise<PolicyDecision> {
  if (filePath === undefined) return ALLOW;
  const { paths } = await candidatePaths(filePath, "read", ctx);
  const sensitive = paths.find(isSensitivePath);
  return sensitive === undefined ? ALLOW : sensitiveQuestion(sensitive);
}

async function checkCommit(protectedPaths: ProtectedPaths, input: unknown, ctx: ToolContext): Promise<PolicyDecision> {
  const requested = stringArrayField(input, "files");
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
  return result.ok ? ALLOW : { action: "deny", reason: result.reason };
}

async function checkDiffSize(
  config: ResolvedPolicyConfig,
  toolName: "Write" | "Edit",
  input: unknown,
  absolutePath: string | undefined,
  ctx: ToolContext,
): Promise<PolicyDecision> {
  const { maxDiffLines, requireApprovalAbove } = config;
  if ((maxDiffLines === undefined && requireApprovalAbove === undefined) || absolutePath === undefined) return ALLOW;
  const delta = await writeDelta(toolName, input, absolutePath);
  if (delta === 0) return ALLOW;
  let current: number;
  try {
    current = (await ctx.git.diffStat(ctx.baseBranch)).lines;
  } catch (error) {
    ctx.logger.warn({ err: errorMessage(error) }, "policy: diffStat failed; diff size not checked for this write");
    return ALLOW;
  }
  const projected = current + delta;
  if (maxDiffLines !== undefined && projected > maxDiffLines) {
    return {
      action: "deny",
      reason:
        `this ${toolName} would take the branch's diff to about ${projected} lines (now ${current}), over the ` +
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

/** Lines this write adds plus lines it removes, approximately (a multiset difference of lines). */
async function writeDelta(toolName: "Write" | "Edit", input: unknown, absolutePath: string): Promise<number> {
  const existing = await readFile(absolutePath, "utf8").catch(() => undefined);
  if (toolName === "Write") return lineDelta(existing ?? "", stringField(input, "content") ?? "");
  const oldString = stringField(input, "old_string") ?? "";
  const newString = stringField(input, "new_string") ?? "";
  if (oldString === "") return lineDelta("", newString);
  if (existing === undefined) return 0;
  const occurrences = existing.split(oldString).length - 1;
  const replaced = input !== null && typeof input === "object" && (input as { replace_all?: unknown }).replace_all === true ? occurrences : Math.min(occurrences, 1);
  return lineDelta(oldString, newString) * replaced;
}

function lineDelta(before: string, after: string): number {
  const remaining = new Map<string, number>();
  for (const line of splitLines(before)) remaining.set(line, (remaining.get(line) ?? 0) + 1);
  let added = 0;
  for (const line of splitLines(after)) {
    const count = remaining.get(line) ?? 0;
    if (count > 0) remaining.set(line, count - 1);
    else added += 1;
  }
  let removed = 0;
  for (const count of remaining.values()) removed += count;
  return added + removed;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * The path as written and as resolved (a symlink into `.github/workflows` resolves there); the
 * resolved absolute path is undefined when the path guard refuses it, in which case the tool fails.
 */
async function candidatePaths(
  filePath: string,
  intent: "read" | "write",
  ctx: ToolContext,
): Promise<{ paths: string[]; absolute: string | undefined }> {
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
