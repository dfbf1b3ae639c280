import { resolvePolicyConfig, type PolicyConfig, type ResolvedPolicyConfig } from "./policy-config.js";
import { createProtectedPaths, type ProtectedPaths } from "./protected-paths.js";

export type PushDiffCheck = { ok: true } | { ok: false; reason: string };

interface DiffStat {
  files: readonly string[];
  lines: number;
}

/**
 * The host's check before every push (and the agent's before create_pull_request): the branch's
 * diff against the base may not touch a protected path nor exceed `maxDiffLines`.
 */
export function checkPushDiff(config: PolicyConfig, diffStat: DiffStat): PushDiffCheck {
  const resolved = resolvePolicyConfig(config);
  return pushDiffVerdict(resolved, createProtectedPaths(resolved.protectedPaths), diffStat);
}

/** The same check for a caller that already holds the resolved config and its matcher (the policy engine). */
export function pushDiffVerdict(resolved: ResolvedPolicyConfig, protectedPaths: ProtectedPaths, diffStat: DiffStat): PushDiffCheck {
  const touched = diffStat.files.filter((file) => protectedPaths.matches(file));
  if (touched.length > 0) {
    return {
      ok: false,
      reason:
        `the branch changes protected path(s) ${touched.join(", ")} (protected: ${resolved.protectedPaths.join(", ")}); ` +
        "revert those changes before publishing",
    };
  }
  if (resolved.maxDiffLines !== undefined && diffStat.lines > resolved.maxDiffLines) {
    return {
      ok: false,
      reason: `the branch's diff is ${diffStat.lines} lines, over the repository's max_diff_lines of ${resolved.maxDiffLines}`,
    };
  }
  return { ok: true };
}
