import { DEFAULT_MAX_DIFF_BYTES, DEFAULT_PROTECTED_PATHS } from "../../config/index.js";

/** The policy part of a repository's `.github/tackle.yml`, as the engine takes it. */
export interface PolicyConfig {
  /**
   * Globs of paths the agent may not write (Write, Edit, obvious Bash writes) and a push may not
   * touch. A glob without a slash matches at any depth. `.git/**` is always protected.
   * @defaultValue [".github/workflows/**", ".git/**"]
   */
  protectedPaths?: readonly string[] | undefined;
  /**
   * Bash commands refused outright. A plain string matches as a substring (whitespace runs
   * collapsed); `/source/flags` is a regular expression.
   * @defaultValue []
   */
  blockedCommands?: readonly string[] | undefined;
  /** Cap on the branch's diff against the base (added + deleted lines). @defaultValue no cap */
  maxDiffLines?: number | undefined;
  /**
   * A write that takes the branch's diff above this many lines, and a publish whose real diff is
   * above it, need a maintainer's approval. @defaultValue no limit
   */
  requireApprovalAbove?: number | undefined;
  /** Cap on the bytes a published change adds (its new lines' bytes, whole files for binaries). @defaultValue 5 MiB */
  maxDiffBytes?: number | undefined;
  /**
   * Where text from outside the maintainers has reached the job so far: `@login` for an author
   * without write access, or a URL WebFetch read. Asked at each memory write (a memory outlives the
   * job, so such text may be steering it): any source makes the write wait for approval. @defaultValue none
   */
  untrustedSources?: (() => Promise<readonly string[]>) | undefined;
}

export interface ResolvedPolicyConfig {
  protectedPaths: string[];
  blockedCommands: string[];
  maxDiffLines: number | undefined;
  requireApprovalAbove: number | undefined;
  maxDiffBytes: number;
  untrustedSources: () => Promise<readonly string[]>;
}

export { DEFAULT_PROTECTED_PATHS };

/** Git internals are never a legitimate target, whatever the repository configures. */
const ALWAYS_PROTECTED = ".git/**";

export function resolvePolicyConfig(config: PolicyConfig = {}): ResolvedPolicyConfig {
  const protectedPaths = [...(config.protectedPaths ?? DEFAULT_PROTECTED_PATHS)];
  if (!protectedPaths.includes(ALWAYS_PROTECTED)) protectedPaths.push(ALWAYS_PROTECTED);
  return {
    protectedPaths,
    blockedCommands: [...(config.blockedCommands ?? [])],
    maxDiffLines: config.maxDiffLines,
    requireApprovalAbove: config.requireApprovalAbove,
    maxDiffBytes: config.maxDiffBytes ?? DEFAULT_MAX_DIFF_BYTES,
    untrustedSources: config.untrustedSources ?? (async () => []),
  };
}
