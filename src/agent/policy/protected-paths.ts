import path from "node:path";
import { createGlobMatcher, globStaticPrefix } from "../../util/glob-to-regexp.js";

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

export interface ProtectedPaths {
  globs: readonly string[];
  /** Whether writing `relativePath` touches a protected path. */
  matches(relativePath: string): boolean;
  /**
   * Whether removing or moving `relativePath` (a directory, maybe with wildcards) would take a
   * protected path with it: `rm -rf .github` removes `.github/workflows`.
   */
  removedWith(relativePath: string): boolean;
}

export function createProtectedPaths(globs: readonly string[]): ProtectedPaths {
  const isProtected = createGlobMatcher(globs, { matchBase: true });
  const prefixes = globs.map(globStaticPrefix).filter((prefix) => prefix !== "");

  const matches = (relativePath: string): boolean => {
    if (isProtected(relativePath)) return true;
    const dir = wildcardDir(relativePath);
    return dir !== undefined && dir !== "" && (isProtected(dir) || isProtected(`${dir}/_`));
  };
  const removedWith = (relativePath: string): boolean => {
    if (matches(relativePath)) return true;
    const dir = wildcardDir(relativePath) ?? relativePath;
    return prefixes.some((prefix) => dir === "" || prefix === dir || prefix.startsWith(`${dir}/`));
  };
  return { globs, matches, removedWith };
}

/** For a path with shell wildcards, the literal directory before the first one; undefined without wildcards. */
function wildcardDir(relativePath: string): string | undefined {
  const first = relativePath.search(/[*?[{]/);
  if (first === -1) return undefined;
  const slash = relativePath.lastIndexOf("/", first);
  return slash === -1 ? "" : relativePath.slice(0, slash);
}
