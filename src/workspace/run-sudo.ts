import { helperArgv, helperPath, runHelper } from "./launch-privileged.js";

/**
 * `sudo -n argv…` for the Action's runner set-up (bubblewrap, ripgrep): never prompts, logs the
 * command and, when it fails, the last lines of what it said; true when it succeeded. sudo is found in
 * the system directories and started with a fixed environment (launch-privileged.ts).
 */
export async function runSudo(argv: readonly string[], log: (line: string) => void): Promise<boolean> {
  const shown = `sudo -n ${argv.join(" ")}`;
  log(shown);
  if (helperPath("sudo") === null) {
    log(`${shown} failed: sudo is not installed`);
    return false;
  }
  const result = await runHelper(helperArgv("sudo", ["-n", ...argv]), { timeoutMs: 300_000 });
  if (result.exitCode === 0) return true;
  const why = (result.error?.message ?? result.output).trim().split("\n").slice(-2).join(" / ");
  log(`${shown} failed (${result.exitCode ?? "no exit code"}): ${why}`);
  return false;
}
