/** The Action's own sandbox set-up on a runner where sudo needs no password (GitHub-hosted Ubuntu). */
import { execa } from "execa";
import { detectSandbox, type SandboxSupport } from "./detect-sandbox.js";

const INSTALL = ["apt-get", "install", "-y", "bubblewrap"];
/** Ubuntu 24.04's AppArmor keeps unprivileged processes from creating user namespaces, which bubblewrap needs. */
const ALLOW_USERNS = ["sysctl", "-w", "kernel.apparmor_restrict_unprivileged_userns=0"];

/**
 * Installs bubblewrap when it is missing and allows unprivileged user namespaces when bubblewrap is
 * there but cannot start, each with `sudo -n` (never a password prompt), then detects again. A step
 * that fails is logged, not thrown: the detection afterwards decides. `log` gets one line per step.
 */
export async function setUpSandbox(before: SandboxSupport, log: (line: string) => void): Promise<SandboxSupport> {
  let support = before;
  if (!support.installed) {
    // A runner image's package lists may be stale: refresh them once if the first try fails.
    const installed = (await sudo(INSTALL, log)) || ((await sudo(["apt-get", "update"], log)) && (await sudo(INSTALL, log)));
    if (installed) support = await detectSandbox({ again: true });
  }
  if (support.installed && !support.available) {
    if (await sudo(ALLOW_USERNS, log)) support = await detectSandbox({ again: true });
  }
  return support;
}

async function sudo(argv: readonly string[], log: (line: string) => void): Promise<boolean> {
  const shown = `sudo -n ${argv.join(" ")}`;
  log(`setting up the sandbox: ${shown}`);
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
