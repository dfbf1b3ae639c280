import { compilePathPattern, type PathPattern } from "./compile-path-pattern.js";

/** Several path patterns (a repository's `protected_paths`) as one matcher over repository-relative paths. */
export interface PathMatcher {
  /** The patterns as written. */
  readonly globs: readonly string[];
  readonly patterns: readonly PathPattern[];
  /** Whether the path matches a pattern; a directory pattern (`dir/**`) also matches `dir` itself. */
  matches(relativePath: string): boolean;
  /**
   * Whether `relativeDir` itself or any path below it could match: what a symlink, a file or a
   * removal in place of that directory would touch (`.github` for `.github/workflows/**`; any
   * directory for a pattern without a slash such as `*.lock`). "" is the repository root.
   */
  matchesOrContains(relativeDir: string): boolean;
}

export type PathMatcherResult = { ok: true; matcher: PathMatcher } | { ok: false; problems: string[] };

/** Compiles every pattern; any that cannot match as written is a problem, never a silent non-match. */
export function createPathMatcher(globs: readonly string[]): PathMatcherResult {
  const patterns: PathPattern[] = [];
  const problems: string[] = [];
  for (const glob of globs) {
    const compiled = compilePathPattern(glob);
    if (compiled.ok) patterns.push(compiled.pattern);
    else problems.push(compiled.problem);
  }
  if (problems.length > 0) return { ok: false, problems };
  const matches = (relativePath: string) => patterns.some((pattern) => pattern.test(relativePath));
  return {
    ok: true,
    matcher: {
      globs,
      patterns,
      matches,
      matchesOrContains: (relativeDir) => matches(relativeDir) || patterns.some((pattern) => pattern.couldMatchBelow(relativeDir)),
    },
  };
}
