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

/**
 * What a whole list may weigh (each pattern's `weight`): every pattern is tested on every path the
 * model writes or publishes, so a list of 200 patterns each within its own bound could still take a
 * minute on one path. 200 plain `*.lock` entries weigh 12,800 (64 each, with the `**\/` they start with).
 */
const MAX_LIST_WEIGHT = 32_768;

/** Linux's bounds: a path of at most 4,096 bytes, each name at most 255 (counted in UTF-16 units here, which only makes a long name longer). */
const MAX_PATH_CHARS = 4_096;
const MAX_NAME_CHARS = 255;

function isRealPath(relativePath: string): boolean {
  if (relativePath.length > MAX_PATH_CHARS) return false;
  let start = 0;
  for (let slash = relativePath.indexOf("/"); slash !== -1; slash = relativePath.indexOf("/", start)) {
    if (slash - start > MAX_NAME_CHARS) return false;
    start = slash + 1;
  }
  return relativePath.length - start <= MAX_NAME_CHARS;
}

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
  const weight = patterns.reduce((sum, pattern) => sum + pattern.weight, 0);
  if (weight > MAX_LIST_WEIGHT) {
    return {
      ok: false,
      problems: [
        `the patterns together weigh ${weight}, more than ${MAX_LIST_WEIGHT} (each weighs its ways to match one place times 8 per wildcard), which can take a long time to test on each path; merge them or use fewer wildcards`,
      ],
    };
  }
  // A path no file system holds is protected, untested: the patterns' cost is bounded for real paths
  // only, and the model's text reaches here before any file system refuses it (`d/*a*a*x` on a Write
  // of 6,000 characters held the event loop 16 s).
  const matches = (relativePath: string) => !isRealPath(relativePath) || patterns.some((pattern) => pattern.test(relativePath));
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
