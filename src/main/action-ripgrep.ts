// Stands in for `@vscode/ripgrep` in the Action's bundle: an Action runs from its own checkout, with
// no node_modules and so no downloaded ripgrep binary. Use the package's binary when it happens to be
// installed next to the bundle, else the `rg` on the step's PATH. The path must be absolute: the search
// spawns ripgrep with a PATH of its own (`/usr/bin:/bin`, src/workspace/search.ts), not the step's, so a
// bare `rg` would only be found in those two directories. Kept free of our other modules: the search
// imports it in the bundle.
import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * Where Debian's and Ubuntu's `ripgrep` package puts the binary: the path used when none is found,
 * so that ripgrep the Action installs during the step (action-ripgrep-setup.ts) is the one searched with.
 */
const SYSTEM_RIPGREP = "/usr/bin/rg";

const BINARY = process.platform === "win32" ? "rg.exe" : "rg";

/**
 * The ripgrep binary to run, as an absolute path: the platform package's (resolved from `from`, by
 * default this module: the bundle's directory), else the first executable `rg` on `searchPath`.
 */
export function findRipgrep(searchPath: string | undefined = process.env.PATH, from: string = import.meta.url): string | undefined {
  const platformPackage = `@vscode/ripgrep-${process.platform}-${process.arch}`;
  try {
    return createRequire(from).resolve(`${platformPackage}/bin/${BINARY}`);
  } catch {
    // Not installed next to the bundle (the usual case): look on PATH.
  }
  // Relative entries would name a different file in the worktree the search runs in: skipped.
  const dirs = (searchPath ?? "").split(path.delimiter).filter((dir) => path.isAbsolute(dir));
  return dirs.map((dir) => path.join(dir, BINARY)).find(isExecutableFile);
}

export function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

export const rgPath = findRipgrep() ?? SYSTEM_RIPGREP;
