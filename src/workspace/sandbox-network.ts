import type { ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { networkInterfaces } from "node:os";
import type { Readable } from "node:stream";
import { TackleError } from "../errors/index.js";
import { hasHelper, helperArgv, helperPath, spawnHelper } from "./launch-privileged.js";

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * Outbound network for setup steps (`network: true`). A holder process owns a fresh network
 * namespace; slirp4netns gives it a user-mode NAT through tap0 with `--disable-host-loopback` (10.0.2.2
 * does not reach the host's 127.0.0.1) and brings its loopback up; routes to link-local (cloud
 * metadata), private ranges and the host's own addresses are blackholed in it. Only then does
 * bubblewrap enter it (`--share-net`): the command has no CAP_NET_ADMIN there (and cannot create a user
 * namespace to get one), so it cannot undo them.
 *
 * The namespace is made and configured before bubblewrap starts, never in bubblewrap's own: its child
 * sets up the loopback of a namespace it creates, and slirp4netns configuring the same loopback at
 * that moment made bubblewrap fail ("loopback: Failed RTM_NEWADDR") in about one start out of seven.
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

function blackholeCommands(): string {
  const ranges = [...new Set([...BLOCKED_RANGES, ...hostRanges()])];
  return `${ranges.map((range) => `route add blackhole ${range}`).join("\n")}\n`;
}

/** Reads bubblewrap's --info-fd JSON until it names the sandbox's pid 1 (a pid in Tackle's namespace). */
export function readChildPid(stream: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match?.[1]) resolve(Number(match[1]));
    });
    stream.once("close", () => reject(new TackleError("sandbox_unavailable", "bubblewrap exited before reporting its pid")));
    stream.on("error", () => undefined);
  });
}

/** Exit code once the process has exited and its output is drained (so its stderr is complete). */
function waitClose(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("close", (code) => resolve(code)));
}

/**
 * Starts slirp4netns on the network namespace of a holder from {@link startNetworkHolder} and installs
 * the blackhole routes. Resolves with the slirp4netns process (to kill when the command ends) once the
 * namespace is ready.
 *
 * `asRoot`: the holder made only a network namespace, which slirp4netns and ip join by path. Otherwise
 * the holder's user namespace is Tackle's, and both tools join it first, as rootless containers do.
 */
async function attachNetwork(holderPid: number, signal: AbortSignal, asRoot: boolean): Promise<ChildProcess> {
  const netns = `/proc/${holderPid}/ns/net`;
  const target = asRoot ? ["--netns-type=path", netns] : [String(holderPid)];
  const slirp = spawnHelper(
    helperArgv("slirp4netns", [
      "--configure",
      "--mtu=65520",
      "--disable-host-loopback",
      "--enable-sandbox",
      "--enable-seccomp",
      "--ready-fd=3",
      "--exit-fd=4",
      ...target,
      "tap0",
    ]),
    { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
  );
  // A pipe of a killed process may report ECONNRESET; unhandled, that would take Tackle down.
  for (const stream of slirp.stdio) stream?.on("error", () => undefined);
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
    const enter = asRoot ? [`--net=${netns}`] : ["--target", String(holderPid), "--user", "--net", "--preserve-credentials"];
    const routes = spawnHelper(helperArgv("nsenter", [...enter, "--", helperPath("ip") ?? "ip", "-4", "-batch", "-"]), { stdio: ["pipe", "ignore", "pipe"] });
    let routeErrors = "";
    routes.stderr?.on("data", (chunk: Buffer) => (routeErrors += chunk.toString("utf8")));
    routes.stdin?.on("error", () => undefined);
    routes.stdin?.end(blackholeCommands());
    const code = await new Promise<number | null>((resolve, reject) => {
      routes.once("error", (error) => reject(new TackleError("sandbox_unavailable", `nsenter/ip: ${error.message}`)));
      void waitClose(routes).then(resolve);
    });
    if (code !== 0) throw new TackleError("sandbox_unavailable", `could not restrict the sandbox's routes: ${routeErrors.trim()}`);
    return slirp;
  } catch (error) {
    slirp.kill("SIGKILL");
    throw error;
  }
}

/**
 * A process holding a fresh network namespace that the sandbox then enters. As root, just a network
 * namespace; otherwise also a user namespace (Tackle's uid mapped to 0, so slirp4netns and ip may
 * configure it). It exits when its stdin closes, so it cannot outlive Tackle.
 */
async function startNetworkHolder(signal: AbortSignal): Promise<ChildProcess> {
  const namespaces = isRoot() ? ["--net"] : ["--user", "--net", "--map-root-user"];
  const holder = spawnHelper(helperArgv("unshare", [...namespaces, "--", helperPath("sh") ?? "sh", "-c", "echo ready; exec cat >/dev/null"]), {
    stdio: ["pipe", "pipe", "pipe"],
  });
  for (const stream of holder.stdio) stream?.on("error", () => undefined);
  let stderr = "";
  holder.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  try {
    await new Promise<void>((resolve, reject) => {
      signal.addEventListener("abort", () => reject(new TackleError("aborted", "sandbox start cancelled")), { once: true });
      holder.stdout?.once("data", () => resolve());
      holder.once("error", (error) => reject(new TackleError("sandbox_unavailable", `unshare: ${error.message}`)));
      holder.once("exit", () => reject(new TackleError("sandbox_unavailable", `cannot create a network namespace: ${stderr.trim()}`)));
    });
    return holder;
  } catch (error) {
    holder.kill("SIGKILL");
    throw error;
  }
}

let slirpCache: boolean | undefined;

/**
 * Whether `network: true` can get slirp4netns: the tools, and unprivileged, a usable /dev/net/tun.
 */
export function slirpAvailable(): boolean {
  slirpCache ??= (() => {
    if (!(["slirp4netns", "ip", "nsenter", "unshare"] as const).every(hasHelper)) return false;
    if (isRoot()) return true;
    try {
      accessSync("/dev/net/tun", constants.R_OK | constants.W_OK);
      return true;
    } catch {
      return false;
    }
  })();
  return slirpCache;
}

/**
 * Makes the namespace, attaches slirp4netns to it and restricts its routes, for bubblewrap to enter.
 * Returns the holder's pid and the processes to kill when the command ends.
 */
export async function openNetwork(signal: AbortSignal | undefined): Promise<{ holderPid: number; helpers: ChildProcess[] }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 20_000);
  const either = AbortSignal.any([controller.signal, ...(signal ? [signal] : [])]);
  const helpers: ChildProcess[] = [];
  try {
    const holder = await startNetworkHolder(either);
    helpers.push(holder);
    helpers.push(await attachNetwork(holder.pid ?? 0, either, isRoot()));
    return { holderPid: holder.pid ?? 0, helpers };
  } catch (error) {
    for (const helper of helpers) helper.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
