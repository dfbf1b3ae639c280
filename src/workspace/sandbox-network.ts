import { spawn, type ChildProcess } from "node:child_process";
import { networkInterfaces } from "node:os";
import type { Readable } from "node:stream";
import { TackleError } from "../errors/index.js";

/**
 * Outbound network for setup steps (`network: true`). The sandbox keeps its own network namespace;
 * slirp4netns gives it a user-mode NAT through tap0 with `--disable-host-loopback` (10.0.2.2 does not
 * reach the host's 127.0.0.1). Routes to link-local (cloud metadata), private ranges and the host's
 * own addresses are blackholed inside the namespace by root before the command starts; the command
 * has no CAP_NET_ADMIN there (and cannot create a user namespace to get one), so it cannot undo them.
 */

const BLOCKED_RANGES = [
  "0.0.0.0/8",
  "10.0.0.0/8", // slirp's own 10.0.2.0/24 stays reachable through its more specific link route
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "224.0.0.0/4",
  "240.0.0.0/4",
];

/** Host interface networks and addresses: a service bound to 0.0.0.0 must not be reachable either. */
function hostRanges(): string[] {
  const ranges: string[] = [];
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family !== "IPv4" || address.internal) continue;
      ranges.push(`${address.address}/32`);
      if (address.cidr) ranges.push(networkOf(address.cidr));
    }
  }
  return ranges;
}

function networkOf(cidr: string): string {
  const [ip = "", bitsText = "32"] = cidr.split("/");
  const bits = Number(bitsText);
  const value = ip.split(".").reduce((acc, part) => (acc << 8) + Number(part), 0) >>> 0;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  const network = (value & mask) >>> 0;
  return `${[24, 16, 8, 0].map((shift) => (network >>> shift) & 255).join(".")}/${bits}`;
}

export function blackholeCommands(): string {
  const ranges = [...new Set([...BLOCKED_RANGES, ...hostRanges()])];
  return `${ranges.map((range) => `route add blackhole ${range}`).join("\n")}\n`;
}

/** Reads bubblewrap's --info-fd JSON until it names the sandbox's pid. */
export function readChildPid(stream: Readable, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = "";
    const finish = (error?: Error, pid?: number): void => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      signal.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(pid ?? 0);
    };
    const onData = (chunk: Buffer): void => {
      text += chunk.toString("utf8");
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match?.[1]) finish(undefined, Number(match[1]));
    };
    const onEnd = (): void => finish(new TackleError("sandbox_unavailable", "bubblewrap exited before reporting its pid"));
    const onAbort = (): void => finish(new TackleError("aborted", "sandbox start cancelled"));
    stream.on("data", onData);
    stream.on("end", onEnd);
    signal.addEventListener("abort", onAbort);
  });
}

function waitExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

/**
 * Starts slirp4netns on the sandbox's network namespace and installs the blackhole routes. Resolves
 * with the slirp4netns process (to kill when the command ends) once the namespace is ready.
 */
export async function attachNetwork(childPid: number, signal: AbortSignal): Promise<ChildProcess> {
  const netns = `/proc/${childPid}/ns/net`;
  // --netns-type=path: join only the network namespace. Joining the sandbox's (nested) user
  // namespace, as slirp4netns does for a pid, leaves it without rights over the network namespace.
  const slirp = spawn(
    "slirp4netns",
    ["--configure", "--mtu=65520", "--disable-host-loopback", "--enable-sandbox", "--enable-seccomp", "--ready-fd=3", "--exit-fd=4", "--netns-type=path", netns, "tap0"],
    { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"], env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } },
  );
  let stderr = "";
  slirp.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-2000);
  });
  const ready = slirp.stdio[3] as Readable;
  try {
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(new TackleError("aborted", "sandbox start cancelled"));
      signal.addEventListener("abort", onAbort, { once: true });
      ready.once("data", () => resolve());
      slirp.once("error", (error) => reject(new TackleError("sandbox_unavailable", `slirp4netns: ${error.message}`)));
      slirp.once("exit", () => reject(new TackleError("sandbox_unavailable", `slirp4netns failed: ${stderr.trim()}`)));
    });
    const routes = spawn("nsenter", [`--net=${netns}`, "--", "ip", "-4", "-batch", "-"], {
      stdio: ["pipe", "ignore", "pipe"],
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
    });
    let routeErrors = "";
    routes.stderr?.on("data", (chunk: Buffer) => (routeErrors += chunk.toString("utf8")));
    routes.stdin?.end(blackholeCommands());
    const code = await new Promise<number | null>((resolve, reject) => {
      routes.once("error", (error) => reject(new TackleError("sandbox_unavailable", `nsenter/ip: ${error.message}`)));
      void waitExit(routes).then(resolve);
    });
    if (code !== 0) throw new TackleError("sandbox_unavailable", `could not restrict the sandbox's routes: ${routeErrors.trim()}`);
    return slirp;
  } catch (error) {
    slirp.kill("SIGKILL");
    throw error;
  }
}
