import type { ChangedPath, PublishedChange, PublishVerdict, TreeSymlinks } from "../ports.js";
import { MAX_PUBLISHED_FILE_BYTES } from "../../config/index.js";
import { resolvePolicyConfig, type PolicyConfig, type ResolvedPolicyConfig } from "./policy-config.js";
import { createProtectedPaths, type ProtectedPaths } from "./protected-paths.js";
import { createResolveBudget, createSymlinkResolver, sameDestination, spend, type SymlinkDestination, type SymlinkResolver } from "./resolve-symlink.js";

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
 * themselves: a file or symlink standing where a protected directory is, a symlink leading to a
 * protected path, the root or out of the repository (followed through the symlinks of its tree), any
 * submodule (gitlink) change, and files too large to
 * review. Every new commit is checked on its own too, so a protected change reverted by a later
 * commit still does not reach the remote's history. The size thresholds are judged here, on the real
 * change, whatever wrote it (Write, Edit or Bash): over max_diff_lines or max_diff_bytes is refused,
 * over require_approval_above waits for a maintainer.
 */
/** Problems a refusal names at most (the rest are counted): its text goes to the model and the tracking comment. */
const MAX_LISTED_PROBLEMS = 50;

export function checkPublishedChange(config: PolicyConfig, change: PublishedChange): PublishVerdict {
  const resolved = resolvePolicyConfig(config);
  const rules = createProtectedPaths(resolved.protectedPaths);
  // A set: one problem per path, found in constant time (a list's includes() over 12,000 protected
  // paths held the event loop 3.8 s).
  const problems = new Set<string>();
  const seen = new Set<string>();
  for (const entry of [...change.files, ...change.commitFiles]) {
    const key = `${entry.path}\0${entry.oldMode}\0${entry.newMode}\0${entry.bytes}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const problem = pathProblem(entry, rules);
    if (problem) problems.add(problem);
  }
  for (const problem of symlinkProblems(change, rules)) problems.add(problem);
  if (problems.size > 0) {
    const listed = [...problems].slice(0, MAX_LISTED_PROBLEMS);
    const more = problems.size > listed.length ? `; and ${problems.size - listed.length} more` : "";
    return {
      action: "refuse",
      reason: `${listed.join("; ")}${more} (protected: ${resolved.protectedPaths.join(", ")}); revert those changes (and rewrite the commits that made them) before publishing`,
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
 * files, so `matches` is enough for files; symlinks are judged by where they lead (`symlinkProblems`).
 */
function pathProblem(entry: ChangedPath, rules: ProtectedPaths): string | null {
  if (entry.oldMode === "160000" || entry.newMode === "160000")
    return `the change adds, moves or updates the submodule ${entry.path}, which Tackle does not publish`;
  if (rules.matches(entry.path)) return `the change touches the protected path ${entry.path}`;
  if (entry.bytes > MAX_PUBLISHED_FILE_BYTES)
    return `${entry.path} is ${entry.bytes} bytes, over the ${MAX_PUBLISHED_FILE_BYTES}-byte limit for a published file`;
  return null;
}

/** The work one check may spend resolving symlinks; a tree of 10,000 links costs some 50,000. */
export const MAX_SYMLINK_STEPS = 1_000_000;

interface KnownTree {
  links: TreeSymlinks;
  resolver: SymlinkResolver;
}

/**
 * Every symlink of the published trees that leads somewhere new: one that is not in the start's tree
 * (or, for a new commit's tree, the base branch's) with the same target and the same destination. So a
 * new or changed link is judged by where the kernel would take it, through the links of its own tree
 * (`self -> .` in the base makes `x -> self/.github/workflows` a link to `.github/workflows`), and an
 * unchanged link is judged again when the change's links make it lead elsewhere.
 */
function symlinkProblems(change: PublishedChange, rules: ProtectedPaths): string[] {
  const { symlinks } = change;
  if (symlinks === null) {
    // The host lists the trees' links whenever a commit touches one; without the list, nothing can be resolved.
    const link = [...change.files, ...change.commitFiles].find((entry) => entry.oldMode === "120000" || entry.newMode === "120000");
    return link ? [`the symlink ${link.path} cannot be judged: the host did not list the symlinks of the trees`] : [];
  }
  const budget = createResolveBudget(MAX_SYMLINK_STEPS);
  const known = (links: TreeSymlinks): KnownTree => ({ links, resolver: createSymlinkResolver(links, budget) });
  const from = known(symlinks.from);
  const base = symlinks.base === undefined ? [] : [known(symlinks.base)];
  const problems = new Set<string>();
  // The same link leading to the same place in several trees is judged by the rules once.
  const judged = new Map<string, string | null>();
  const judge = (tree: TreeSymlinks, knownTrees: readonly KnownTree[]) => {
    const resolver = createSymlinkResolver(tree, budget);
    for (const [linkPath, target] of tree.entries()) {
      if (!spend(budget)) return;
      const destination = resolver.destination(linkPath);
      const sameTarget = target === null ? [] : knownTrees.filter((other) => other.links.get(linkPath) === target);
      if (sameTarget.some((other) => sameDestination(other.resolver.destination(linkPath), destination))) continue;
      const unchanged = sameTarget.length > 0;
      const key = `${linkPath}\0${target}\0${unchanged}\0${destinationKey(destination)}`;
      let problem = judged.get(key);
      if (problem === undefined) {
        problem = linkProblem(linkPath, target, destination, rules, unchanged);
        judged.set(key, problem);
        if (problem !== null) problems.add(problem);
      }
    }
  };
  judge(symlinks.tip, [from]);
  for (const tree of symlinks.commits) judge(tree, [from, ...base]);
  if (budget.exhausted) {
    return [
      `the branch's symlinks take more than ${MAX_SYMLINK_STEPS} steps to resolve, more than the publish check takes; change fewer symlinks, in fewer commits`,
    ];
  }
  return [...problems];
}

function destinationKey(destination: SymlinkDestination): string {
  if (destination.kind === "unclear") return `?${destination.why}`;
  return `${destination.kind === "inside" ? `=${destination.path}` : "^"}\0${destination.via.join("\0")}`;
}

/** What is wrong with the symlink at `linkPath` leading to `destination`; `unchanged` when only other links moved it. */
function linkProblem(linkPath: string, target: string | null, destination: SymlinkDestination, rules: ProtectedPaths, unchanged: boolean): string | null {
  // Directories are judged by removedWith, the anchored patterns (`.github/workflows/**`): one without
  // a slash (`*.lock`) could match below any directory, and would refuse every symlink.
  const shown = target === null ? "not read" : JSON.stringify(target.length > 200 ? `${target.slice(0, 200)}…` : target);
  const link = `the symlink ${linkPath}${unchanged ? " (unchanged, but led elsewhere by the change's symlinks)" : ""}`;
  const through = destination.kind !== "unclear" && destination.via.length > 0 ? ` (through the symlink ${destination.via.join(", then ")})` : "";
  if (destination.kind === "outside") return `${link} points out of the repository (${shown})${through}`;
  if (!unchanged && rules.removedWith(linkPath)) return `${link} stands where protected paths are`;
  switch (destination.kind) {
    case "unclear":
      return `${link} has a target (${shown}) that ${destination.why}`;
    case "inside": {
      const resolved = destination.path;
      if (resolved === "") return `${link} points at the repository root, which holds protected paths${through}`;
      if (resolved === ".git" || resolved.startsWith(".git/") || rules.removedWith(resolved)) {
        return `${link} points at the protected path ${resolved}${through}`;
      }
      return null;
    }
  }
}
