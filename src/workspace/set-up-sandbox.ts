/** The Action's own sandbox set-up on a runner where sudo needs no password (GitHub-hosted Ubuntu). */
import { detectSandbox, type SandboxSupport } from "./detect-sandbox.js";
import { runSudo } from "./run-sudo.js";

const INSTALL = ["apt-get", "install", "-y", "bubblewrap"];
/** Ubuntu 24.04's AppArmor keeps unprivileged processes from creating user namespaces, which bubblewrap needs. */
const ALLOW_USERNS = ["sysctl", "-w", "kernel.apparmor_restrict_unprivileged_userns=0"];

/**
 * Installs bubblewrap when it is missing and allows unprivileged user namespaces when bubblewrap is
 * there but cannot start, each with `sudo -n` (never a password prompt), then detects again. A step
 * that fails is logged, not thrown: the detection afterwards decides. `log` gets one line per step.
 */
export async function setUpSandbox(before: SandboxSupport, log: (line: string) => void): Promise<SandboxSupport> {
  const sudo = (argv: readonly string[]) => runSudo(argv, (line) => log(`setting up the sandbox: ${line}`));
  let support = before;
  if (!support.installed) {
    // A runner image's package lists may be stale: refresh them once if the first try fails.
    const installed = (await sudo(INSTALL)) || ((await sudo(["apt-get", "update"])) && (await sudo(INSTALL)));
    if (installed) support = await detectSandbox({ again: true });
  }
  if (support.installed && !support.available) {
    if (await sudo(ALLOW_USERNS)) support = await detectSandbox({ again: true });
  }
  return support;
}
