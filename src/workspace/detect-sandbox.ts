/** `tackle doctor` and the server ask here whether commands can be sandboxed. */
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSandboxExec, isRoot } from "./sandbox.js";
import { hasHelper, helperPath, helperArgv, runHelperSync } from "./launch-privileged.js";
import { slirpAvailable } from "./sandbox-network.js";
import { DEFAULT_IDENTITY } from "./sandbox-plan.js";

export interface SandboxSupport {
  available: boolean;
  /** `bwrap` was found, whether or not it works here. */
  installed: boolean;
  /** What was found, or why it is unavailable and how to fix it. */
  detail: string;
  /** slirp4netns, ip and nsenter are present, so setup steps can have a restricted network. */
  network: boolean;
}

let detected: Promise<SandboxSupport> | undefined;

/**
 * Whether bubblewrap exists and works here: `bwrap --ro-bind / / true`, then a command started
 * the way Tackle starts every command (as root: dropped to an unprivileged uid). Decided once per
 * process; `again` probes anew (after something changed the host, e.g. {@link setUpSandbox}).
 */
export function detectSandbox(options: { again?: boolean } = {}): Promise<SandboxSupport> {
  if (options.again) detected = undefined;
  detected ??= (async () => {
    const network = slirpAvailable();
    if (helperPath("bwrap") === null)
      return { available: false, installed: false, network, detail: "bubblewrap (bwrap) is not installed: apt-get install bubblewrap" };
    const probe = runHelperSync(helperArgv("bwrap", ["--ro-bind", "/", "/", "true"]), { timeoutMs: 10_000 });
    if (probe.status !== 0) {
      const why = (probe.error?.message ?? probe.stderr).trim();
      return {
        available: false,
        installed: true,
        network,
        detail: `bubblewrap does not work here (${why}); unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0)`,
      };
    }
    if (isRoot() && !(hasHelper("setpriv") && hasHelper("unshare"))) {
      return { available: false, installed: true, network, detail: "running as root needs setpriv and unshare (util-linux) to drop privileges" };
    }
    const dir = await mkdtemp(path.join(tmpdir(), "tackle-probe-"));
    try {
      if (isRoot()) await chown(dir, DEFAULT_IDENTITY.uid, DEFAULT_IDENTITY.gid);
      const result = await createSandboxExec({ root: dir, mode: "bwrap" }).run("touch probe && echo ok", { timeoutMs: 20_000 });
      if (result.exitCode !== 0 || !result.output.includes("ok")) {
        return { available: false, installed: true, network, detail: `bubblewrap fails as Tackle starts it: ${result.output.trim().slice(0, 500)}` };
      }
      const version = runHelperSync(helperArgv("bwrap", ["--version"]), { timeoutMs: 10_000 }).stdout.trim();
      const who = isRoot() ? `commands run as uid ${DEFAULT_IDENTITY.uid}` : "commands run as the current user";
      return {
        available: true,
        installed: true,
        network,
        detail: `${version || "bubblewrap"}; ${who}; setup-step network: ${network ? "slirp4netns" : "unavailable"}`,
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return detected;
}
