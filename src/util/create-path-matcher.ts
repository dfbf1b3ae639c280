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
  /**
   * Whether removing, moving or replacing `relativePath` (a file or a symlink where a directory
   * was) takes a protected path with it: `.github` for `.github/workflows/**`. Unlike
   * `matchesOrContains`, a pattern without a slash (`*.lock`) does not make every directory count:
   * whether a lock file lies below is for a check that sees the files to decide.
   */
  removedWith(relativePath: string): boolean;
}

/** On failure, every problem, and those of single entries with the entry's index (none when the list as a whole is the problem). */
export type PathMatcherResult = { ok: true; matcher: PathMatcher } | { ok: false; problems: string[]; entries: Array<{ index: number; problem: string }> };

/**
 * What a whole list's machines may hold together (states plus edges): every entry is run over every
 * path the model writes or publishes, so one character of a path costs at most this. 200 entries of
 * 30 characters hold about 12,000.
 */
const MAX_LIST_SIZE = 60_000;

/**
 * What testing one path against the whole list may spend (states visited, edges tried, sets built),
 * on the Tackle process's event loop: about 6 ms here when every move misses the cache (a hostile
 * list spent 2,000,000 steps in 34 ms). Ordinary lists spend a few thousand on an ordinary path (200
 * plain entries reach the bound on a path of about 1,000 characters); a path that would cost more is
 * protected without an answer (fail closed).
 */
export const MAX_STEPS_PER_PATH = 250_000;

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
  const entries: Array<{ index: number; problem: string }> = [];
  for (const [index, glob] of globs.entries()) {
    const compiled = compilePathPattern(glob);
    if (compiled.ok) patterns.push(compiled.pattern);
    else entries.push({ index, problem: compiled.problem });
  }
  if (entries.length > 0) return { ok: false, problems: entries.map((entry) => entry.problem), entries };
  const size = patterns.reduce((sum, pattern) => sum + pattern.size, 0);
  if (size > MAX_LIST_SIZE) {
    return {
      ok: false,
      entries: [],
      problems: [
        `the patterns together build machines of ${size} states and edges, more than ${MAX_LIST_SIZE}, each tested on every path; merge them or use fewer alternatives and ranges`,
      ],
    };
  }
  /**
   * Runs the list over one path within MAX_STEPS_PER_PATH: which entry matches, and which could
   * match below it. A path no file system holds, or one that would cost more, is protected untested.
   */
  const scan = (relativePath: string, below: ((pattern: PathPattern) => boolean) | undefined): boolean => {
    if (!isRealPath(relativePath)) return true;
    let left = MAX_STEPS_PER_PATH;
    for (const pattern of patterns) {
      const asksBelow = below?.(pattern) ?? false;
      const run = pattern.run(relativePath, left, asksBelow);
      if (run.exhausted) return true;
      if (run.matched || (asksBelow && run.matchesBelow)) return true;
      left -= run.steps;
    }
    return false;
  };
  return {
    ok: true,
    matcher: {
      globs,
      patterns,
      matches: (relativePath) => scan(relativePath, undefined),
      matchesOrContains: (relativeDir) => scan(relativeDir, () => true),
      removedWith: (relativePath) => scan(relativePath, (pattern) => pattern.anchored),
    },
  };
}
