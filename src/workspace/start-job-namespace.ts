import { readdirSync, readlinkSync } from "node:fs";
import type { Readable } from "node:stream";
import { TackleError } from "../errors/index.js";
import { helperArgv, helperPath, spawnHelper } from "./launch-privileged.js";
import { isRoot, readChildPid } from "./sandbox-network.js";

/**
 * One job's network namespace: loopback only, shared by every agent command of the job so that a
 * server one command starts can be reached by the next, and by no other job.
 *
 * The holder is bubblewrap itself (`--unshare-net`, as root; with `--unshare-user` otherwise): it
 * brings the loopback up, which an `unshare --net` holder would need `ip` for. Its child says when
 * it is set up (bubblewrap names its pid earlier, before it has written its uid map and brought the
 * loopback up), then runs `cat` on a pipe from Tackle, so it ends when Tackle ends, however Tackle ends (the pipe closes), and
 * bubblewrap's outer process with it. Commands enter the child's namespaces with nsenter.
 */
export interface JobNamespace {
  /** The holder's child: the process whose namespaces commands enter. */
  pid: number;
  /** `net:[inode]`: how a process of the job is recognised from the host. */
  netns: string;
  /** Whether the holder still holds the namespace. */
  alive(): boolean;
  /** Kills the holder and waits until it is gone. */
  stop(): Promise<void>;
}

export async function startJobNamespace(): Promise<JobNamespace> {
  const namespaces = isRoot() ? ["--unshare-net"] : ["--unshare-user", "--unshare-net"];
  const sh = helperPath("sh") ?? "sh";
  // bubblewrap's environment shows through /proc/<pid>/environ: it has the helpers' fixed one only.
  const holder = spawnHelper(
    helperArgv("bwrap", [...namespaces, "--ro-bind", "/", "/", "--die-with-parent", "--info-fd", "3", "--", sh, "-c", "echo ready; exec cat"]),
    {
      stdio: ["pipe", "pipe", "pipe", "pipe"],
    },
  );
  for (const stream of holder.stdio) stream?.on("error", () => undefined);
  let stderr = "";
  holder.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-2000)));
  const exited = new Promise<void>((resolve) => holder.once("exit", () => resolve()));
  const closed = new Promise<void>((resolve) => holder.once("close", () => resolve()));
  const ready = new Promise<void>((resolve) => holder.stdout?.once("data", () => resolve()));
  const failed = new Promise<never>((_, reject) => {
    holder.once("error", (error) => reject(new TackleError("sandbox_unavailable", `bubblewrap: ${error.message}`)));
    void closed.then(() => reject(new TackleError("sandbox_unavailable", `cannot create the job's network namespace: ${stderr.trim()}`)));
  });
  failed.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TackleError("sandbox_unavailable", "the job's network namespace did not start within 20 s")), 20_000);
  });
  try {
    const [pid] = await Promise.race([Promise.all([readChildPid(holder.stdio[3] as Readable), ready]), failed, timeout]);
    const netns = readlinkSync(`/proc/${pid}/ns/net`);
    // The holder must not keep Tackle's event loop alive; the job's dispose ends it.
    holder.unref();
    for (const stream of holder.stdio) (stream as { unref?: () => void } | null)?.unref?.();
    const alive = (): boolean => holder.exitCode === null && holder.signalCode === null;
    return {
      pid,
      netns,
      alive,
      async stop() {
        if (!alive()) return;
        // Unreferenced, the holder would not keep Tackle waiting for its end.
        holder.ref();
        signal(pid);
        holder.kill("SIGKILL");
        await exited;
      },
    };
  } catch (error) {
    holder.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function signal(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/**
 * Pids of the processes in network namespace `netns` (`net:[inode]`), read from the host's /proc.
 * Processes whose namespace Tackle may not read (another user's) are not this job's.
 */
export function processesInNetns(netns: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/ns/net`) === netns) pids.push(Number(entry));
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
  return pids;
}
