import type { ChangedPath, PublishedChange, PublishVerdict } from "../ports.js";
import { MAX_PUBLISHED_FILE_BYTES } from "../../config/index.js";
import { resolvePolicyConfig, type PolicyConfig, type ResolvedPolicyConfig } from "./policy-config.js";
import { createProtectedPaths, type ProtectedPaths } from "./protected-paths.js";

interface DiffStat {
  files: readonly string[];
  lines: number;
}

/**
 * The agent-side check before create_pull_request (the policy engine), over the sandbox's view of the
 * branch: advisory, an early answer for the model. The boundary is {@link checkPublishedChange}.
 */
export function pushDiffVerdict(resolved: ResolvedPolicyConfig, protectedPaths: ProtectedPaths, diffStat: DiffStat): PublishVerdict {
  const touched = diffStat.files.filter((file) => protectedPaths.matches(file));
  if (touched.length > 0) {
    return {
      action: "refuse",
      reason:
        `the branch changes protected path(s) ${touched.join(", ")} (protected: ${resolved.protectedPaths.join(", ")}); ` +
        "revert those changes before publishing",
    };
  }
  if (resolved.maxDiffLines !== undefined && diffStat.lines > resolved.maxDiffLines) {
    return {
      action: "refuse",
      reason: `the branch's diff is ${diffStat.lines} lines, over the repository's max_diff_lines of ${resolved.maxDiffLines}`,
    };
  }
  return PUBLISH;
}

const PUBLISH: PublishVerdict = { action: "publish" };

/**
 * The host's verdict on a change about to leave the job (a push, or a local run's hand-over),
 * computed from objects the host owns (see src/workspace/publish-repo.ts). Besides the paths
 * themselves: a file or symlink standing where a protected directory is, a symlink pointing at a
 * protected path or out of the repository, any submodule (gitlink) change, and files too large to
 * review. Every new commit is checked on its own too, so a protected change reverted by a later
 * commit still does not reach the remote's history. The size thresholds are judged here, on the real
 * change, whatever wrote it (Write, Edit or Bash): over max_diff_lines or max_diff_bytes is refused,
 * over require_approval_above waits for a maintainer.
 */
export function checkPublishedChange(config: PolicyConfig, change: PublishedChange): PublishVerdict {
  const resolved = resolvePolicyConfig(config);
  const rules = createProtectedPaths(resolved.protectedPaths);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const entry of [...change.files, ...change.commitFiles]) {
    const key = `${entry.path}\0${entry.oldMode}\0${entry.newMode}\0${entry.symlinkTarget ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const problem = pathProblem(entry, rules);
    if (problem && !problems.includes(problem)) problems.push(problem);
  }
  if (problems.length > 0) {
    return {
      action: "refuse",
      reason: `${problems.join("; ")} (protected: ${resolved.protectedPaths.join(", ")}); revert those changes (and rewrite the commits that made them) before publishing`,
    };
  }
  return sizeVerdict(resolved, change);
}

function sizeVerdict(resolved: ResolvedPolicyConfig, change: PublishedChange): PublishVerdict {
  if (resolved.maxDiffLines !== undefined && change.lines > resolved.maxDiffLines) {
    return { action: "refuse", reason: `the branch's diff is ${change.lines} lines, over the repository's max_diff_lines of ${resolved.maxDiffLines}` };
  }
  if (change.addedBytes > resolved.maxDiffBytes) {
    return {
      action: "refuse",
      reason: `the branch's diff adds ${change.addedBytes} bytes, over the repository's max_diff_bytes of ${resolved.maxDiffBytes}; make a smaller change`,
    };
  }
  if (resolved.requireApprovalAbove !== undefined && change.lines > resolved.requireApprovalAbove) {
    return {
      action: "ask",
      reason: `the branch's diff is ${change.lines} lines, above the repository's require_approval_above of ${resolved.requireApprovalAbove}`,
    };
  }
  return PUBLISH;
}

/**
 * A regular file at a path that used to be a protected directory shows as the deletions of its
 * files, so `matches` is enough for files; a symlink is judged by everything it could stand for.
 */
function pathProblem(entry: ChangedPath, rules: ProtectedPaths): string | null {
  if (entry.oldMode === "160000" || entry.newMode === "160000")
    return `the change adds, moves or updates the submodule ${entry.path}, which Tackle does not publish`;
  if (rules.matches(entry.path)) return `the change touches the protected path ${entry.path}`;
  if (entry.bytes > MAX_PUBLISHED_FILE_BYTES)
    return `${entry.path} is ${entry.bytes} bytes, over the ${MAX_PUBLISHED_FILE_BYTES}-byte limit for a published file`;
  if (entry.symlinkTarget === undefined) return null;
  return symlinkProblem(entry.path, entry.symlinkTarget, rules);
}

function symlinkProblem(linkPath: string, target: string, rules: ProtectedPaths): string | null {
  // Directories are judged by the anchored patterns (`.github/workflows/**`): one without a slash
  // (`*.lock`) could match below any directory, and would refuse every symlink.
  const holdsProtected = (dir: string) => rules.patterns.some((pattern) => pattern.anchored && pattern.couldMatchBelow(dir));
  const destination = symlinkDestination(linkPath, target);
  const shown = JSON.stringify(target.length > 200 ? `${target.slice(0, 200)}…` : target);
  if (destination.kind === "outside") return `the symlink ${linkPath} points out of the repository (${shown})`;
  if (holdsProtected(linkPath)) return `the symlink ${linkPath} stands where protected paths are`;
  switch (destination.kind) {
    case "unclear":
      return `the symlink ${linkPath} has a target (${shown}) ${destination.why}`;
    case "inside": {
      const resolved = destination.path;
      if (resolved === "") return `the symlink ${linkPath} points at the repository root, which holds protected paths`;
      if (resolved === ".git" || resolved.startsWith(".git/") || rules.matches(resolved) || holdsProtected(resolved)) {
        return `the symlink ${linkPath} points at the protected path ${resolved}`;
      }
      return null;
    }
  }
}

type SymlinkDestination = { kind: "inside"; path: string } | { kind: "outside" } | { kind: "unclear"; why: string };

/**
 * Where a symlink at `linkPath` (a path git stores, so every directory above it is a real one) leads,
 * as the kernel would resolve it, in the one form the protected-path rules compare: repository-relative,
 * no `.` or empty segment, no trailing slash ("" for the root). `.github/`, `./.github/.`, `.github//`
 * and `docs/x -> ../.github` are all `.github`. What the host cannot resolve from the target alone is
 * `unclear`: a `..` after a name in the target climbs from wherever that name leads, and the name may be
 * a symlink (`a -> .github/sub`, `b -> a/../workflows` is `.github/workflows`, not `workflows`); a NUL
 * ends the target where git's checkout hands it to symlink(2), so `.github\0x` is `.github`.
 */
function symlinkDestination(linkPath: string, target: string): SymlinkDestination {
  if (target.includes("\0")) return { kind: "unclear", why: "holding a NUL byte, which cuts it short on checkout" };
  if (target.startsWith("/")) return { kind: "outside" };
  const segments = target.split("/").filter((segment) => segment !== "" && segment !== ".");
  const ups = segments.findIndex((segment) => segment !== "..");
  if (ups === -1) return climb(linkPath, segments.length, []);
  if (segments.indexOf("..", ups) !== -1) {
    return { kind: "unclear", why: "that goes up (`..`) after a name, which resolves from wherever that name leads; write it without" };
  }
  return climb(linkPath, ups, segments.slice(ups));
}

/** The symlink's own directory, `ups` levels up, then `names` down. */
function climb(linkPath: string, ups: number, names: readonly string[]): SymlinkDestination {
  const directory = linkPath.split("/").slice(0, -1);
  if (ups > directory.length) return { kind: "outside" };
  return { kind: "inside", path: [...directory.slice(0, directory.length - ups), ...names].join("/") };
}
