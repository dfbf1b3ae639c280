import path from "node:path";
import { TackleError } from "../../errors/index.js";
import { createPathMatcher, type PathMatcher } from "../../util/create-path-matcher.js";

/**
 * A path as the model or a command wrote it, made relative to the worktree root with forward
 * slashes; undefined when it points outside the worktree (the path guard deals with those).
 */
export function normalizeRepoPath(filePath: string, root: string): string | undefined {
  let candidate = filePath.trim();
  if (candidate.startsWith("~")) return undefined;
  if (candidate.startsWith("/")) {
    if (candidate === root || candidate === `${root}/`) return "";
    if (!candidate.startsWith(`${root}/`)) return undefined;
    candidate = candidate.slice(root.length + 1);
  }
  const normalized = path.posix.normalize(candidate).replace(/\/+$/, "");
  if (normalized === "." || normalized === "") return "";
  if (normalized === ".." || normalized.startsWith("../")) return undefined;
  return normalized;
}

/**
 * The repository's protected paths (the host's glob machine, see `compilePathPattern`), for real
 * repository-relative paths: the file tools, the Bash pre-filter and the host's push check.
 */
export type ProtectedPaths = PathMatcher;

/** Throws `config_invalid` for a pattern that cannot match as written (the repo config reports those first). */
export function createProtectedPaths(globs: readonly string[]): ProtectedPaths {
  const result = createPathMatcher(globs);
  if (!result.ok) throw new TackleError("config_invalid", `protected_paths: ${result.problems.join("; ")}`);
  return result.matcher;
}
