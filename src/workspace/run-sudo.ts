import { execa } from "execa";

/**
 * `sudo -n argv…` for the Action's runner set-up (bubblewrap, ripgrep): never prompts, logs the
 * command and, when it fails, the last lines of what it said; true when it succeeded.
 */
export async function runSudo(argv: readonly string[], log: (line: string) => void): Promise<boolean> {
  const shown = `sudo -n ${argv.join(" ")}`;
  log(shown);
  const result = await execa("sudo", ["-n", ...argv], { reject: false, timeout: 300_000, stdin: "ignore" });
  if (result.exitCode === 0) return true;
  const why = String(result.stderr || result.stdout || result.shortMessage || "")
    .trim()
    .split("\n")
    .slice(-2)
    .join(" / ");
  log(`${shown} failed (${result.exitCode ?? "no exit code"}): ${why}`);
  return false;
}
