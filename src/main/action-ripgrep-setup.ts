// Whether the agent's Grep and Glob tools can work in this step: they run ripgrep, which GitHub's
// Ubuntu runner images do not have and the Action's checkout does not bring. On a GitHub-hosted
// runner the Action installs Debian's `ripgrep` package, the way it sets up bubblewrap
// (src/workspace/set-up-sandbox.ts); elsewhere, or when that fails, it says so once and the job goes
// on: the tools then answer the model with an error saying ripgrep is missing (src/workspace/search.ts).
import { runSudo } from "../workspace/index.js";
import { isExecutableFile, rgPath } from "./action-ripgrep.js";

const INSTALL = ["apt-get", "install", "-y", "ripgrep"];

export interface SetUpActionRipgrepOptions {
  /** RUNNER_ENVIRONMENT is `github-hosted`: sudo may work without a password, so ripgrep can be installed. */
  githubHosted: boolean;
  /** Log lines, and the one warning annotation when ripgrep is missing. */
  log: { info(line: string): void; warning(text: string): void };
  /** The binary the search will run. @defaultValue the bundle's (action-ripgrep.ts) */
  ripgrep?: string;
  /** Runs `sudo` with these arguments; true when it exited 0. @defaultValue `sudo` itself, with its failures logged */
  sudo?: (argv: readonly string[]) => Promise<boolean>;
}

/** True when ripgrep is there (or now installed); false after the one warning that says it is not. */
export async function setUpActionRipgrep(options: SetUpActionRipgrepOptions): Promise<boolean> {
  const { log } = options;
  const ripgrep = options.ripgrep ?? rgPath;
  if (isExecutableFile(ripgrep)) return true;
  // Missing means none was found, so `ripgrep` is /usr/bin/rg (action-ripgrep.ts): where the package puts it.
  const installable = options.githubHosted;
  if (installable) {
    const sudo = options.sudo ?? ((argv) => runSudo(argv, (line) => log.info(`tackle: setting up ripgrep: ${line}`)));
    log.info("tackle: ripgrep (`rg`) is not on PATH; installing it on this GitHub-hosted runner for the Grep and Glob tools");
    // Never a password prompt: without passwordless sudo nothing is attempted. Stale package lists get one refresh.
    const installed = (await sudo(["true"])) && ((await sudo(INSTALL)) || ((await sudo(["apt-get", "update"])) && (await sudo(INSTALL))));
    if (installed && isExecutableFile(ripgrep)) {
      log.info(`tackle: ripgrep installed (${ripgrep})`);
      return true;
    }
  }
  log.warning(
    `ripgrep (\`rg\`) is not installed on this runner${installable ? " and could not be installed" : ""}, so the agent's Grep and Glob tools ` +
      "cannot search in this run (it can still search with Bash). Install ripgrep on the runner (`sudo apt-get install -y ripgrep`) or put `rg` on PATH.",
  );
  return false;
}
