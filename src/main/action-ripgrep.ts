// Stands in for `@vscode/ripgrep` in the Action's bundle: an Action runs from its own checkout, with
// no node_modules and so no downloaded ripgrep binary. Use the package's binary when it happens to be
// installed next to the bundle, else `rg` from PATH (`sudo apt-get install -y ripgrep` on the runner).
import { createRequire } from "node:module";

function findRipgrep(): string {
  const binary = process.platform === "win32" ? "rg.exe" : "rg";
  const platformPackage = `@vscode/ripgrep-${process.platform}-${process.arch}`;
  try {
    return createRequire(import.meta.url).resolve(`${platformPackage}/bin/${binary}`);
  } catch {
    return binary;
  }
}

export const rgPath = findRipgrep();
