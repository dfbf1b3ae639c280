import { execa } from "execa";
import { lstat, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { TackleError } from "../errors/index.js";
import type { SandboxIdentity } from "./sandbox-plan.js";

/** Whether anything (a dangling symlink included) is at `p`. */
export async function exists(p: string): Promise<boolean> {
  return (await lstat(p).catch(() => null)) !== null;
}

/** Disk usage of a tree in bytes (allocated blocks), never following symlinks. */
export async function diskUsage(root: string): Promise<number> {
  const info = await lstat(root).catch(() => null);
  if (!info) return 0;
  let total = info.blocks * 512;
  if (!info.isDirectory()) return total;
  const entries = await readdir(root).catch(() => [] as string[]);
  for (const entry of entries) total += await diskUsage(path.join(root, entry));
  return total;
}

/** rm -rf that also copes with directories the agent made read-only (when Tackle is not root). */
export async function removeTree(target: string): Promise<void> {
  try {
    await rm(target, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    await execa("chmod", ["-R", "u+rwx", "--", target], { reject: false });
    await rm(target, { recursive: true, force: true, maxRetries: 2 });
  }
}

/** chown -R without ever following a symlink (a repository may contain one to /etc/shadow). */
export async function chownTree(target: string, owner: SandboxIdentity): Promise<void> {
  const result = await execa("chown", ["-R", "-P", "-h", `${owner.uid}:${owner.gid}`, "--", target], {
    reject: false,
    extendEnv: false,
    env: { PATH: "/usr/bin:/bin" },
  });
  if (result.exitCode !== 0) throw new TackleError("workspace", `chown of ${target} failed: ${String(result.stderr)}`);
}

/**
 * Clears the mode bits git does not track (setuid, setgid, sticky, group- and other-writable) on
 * everything under `root` but `skip`, so a recycled checkout carries none of them over.
 */
export async function clearModeBits(root: string, skip: string): Promise<void> {
  const result = await execa(
    "find",
    [root, "-path", skip, "-prune", "-o", "!", "-type", "l", "-perm", "/7022", "-exec", "chmod", "u-s,g-s,-t,go-w", "{}", "+"],
    {
      reject: false,
      extendEnv: false,
      env: { PATH: "/usr/bin:/bin" },
    },
  );
  if (result.exitCode !== 0) throw new TackleError("workspace", `could not clear mode bits in ${root}: ${String(result.stderr)}`);
}
