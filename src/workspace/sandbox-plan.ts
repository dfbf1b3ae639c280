import { lstat, readlink, stat } from "node:fs/promises";
import { dropPrivileges, helperArgv, helperPath, type HelperArgv } from "./launch-privileged.js";

export { dropPrivileges } from "./launch-privileged.js";

/**
 * Turns "what the sandbox may see" into a bubblewrap command line. Pure apart from probing the
 * host's system layout once, so the unit tests can read the arguments it builds.
 */

export interface SandboxIdentity {
  uid: number;
  gid: number;
}

/** How bubblewrap is started. */
export type Launcher =
  /** Tackle runs as root: a private mount namespace stages the paths, then setpriv drops to `identity`. */
  | { kind: "root-drop"; identity: SandboxIdentity; stageDir: string }
  /** Tackle runs unprivileged; bubblewrap uses an unprivileged user namespace, as Tackle's own uid. */
  | { kind: "unprivileged"; identity: SandboxIdentity };

export interface Bind {
  src: string;
  dest: string;
  kind: "dir" | "file";
  /** Bound by the dropped identity itself, never staged by root: the kernel checks that user's access. */
  byIdentity?: boolean;
}

export interface BwrapPlanInput {
  launcher: Launcher;
  layout: HostLayout;
  root: string;
  /** Bound read-write, in order (the root first, then mount points such as `.git`). */
  writable: readonly Bind[];
  /** Bound read-only (the mirror, toolchains). */
  readOnly: readonly Bind[];
  /** Re-bound read-only on top of the writable binds (`.git/config`, `.git/hooks`). */
  readOnlyInside: readonly Bind[];
  homeDir?: string;
  /** Bound at /tmp, shared by the job's commands; a fresh tmpfs per command when absent. */
  tmpDir?: string;
  env: Readonly<Record<string, string>>;
  /**
   * "none": a loopback of the command's own. "loopback": the job's loopback-only namespace of
   * `holderPid`, shared by its commands. "joined": the network namespace of `holderPid`, which
   * slirp4netns already serves with restricted routes. "host": the host's network namespace (an
   * explicit operator opt-in).
   */
  network: "none" | "loopback" | "joined" | "host";
  /**
   * With "loopback" and "joined": the process owning the namespace to enter (as root, a network
   * namespace only; otherwise with a user namespace of its own, which is entered too).
   */
  holderPid?: number;
  tmpBytes: number;
  innerArgv: readonly string[];
}

export type ExtraFd = { kind: "data"; content: string } | { kind: "info" };

export interface BwrapPlan {
  /** bubblewrap, or what starts it, by absolute path (see launch-privileged.ts). */
  argv: HelperArgv;
  /** Extra descriptors, fd 3 upwards in this order. */
  fds: ExtraFd[];
  /** bubblewrap writes the sandbox's pid here. */
  infoFd: number;
}

export const SANDBOX_HOME = "/home/tackle";
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** Who sandboxed commands run as when Tackle runs as root. */
export const DEFAULT_IDENTITY: SandboxIdentity = { uid: 65534, gid: 65534 };

/** System directories: read-only, or a symlink where the host has merged /usr. */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * The parts of /etc programs need to start, resolve names and verify TLS. Not the whole of /etc:
 * it holds operator configuration (and sometimes credentials) that a repository's code has no
 * business reading. passwd, group and hosts are synthesised instead of bound.
 */
const ETC_ALLOW = [
  "alternatives",
  "bash.bashrc",
  "ca-certificates",
  "ca-certificates.conf",
  "crypto-policies",
  "debian_version",
  "gai.conf",
  "host.conf",
  "inputrc",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "login.defs",
  "lsb-release",
  "mime.types",
  "nsswitch.conf",
  "os-release",
  "pki/ca-trust",
  "pki/tls/certs",
  "profile",
  "protocols",
  "services",
  "ssl/certs",
  "ssl/openssl.cnf",
  "terminfo",
  "timezone",
];

export interface HostLayout {
  system: Array<{ path: string; symlinkTo?: string }>;
  etc: string[];
}

let layoutCache: Promise<HostLayout> | undefined;

export function probeHostLayout(): Promise<HostLayout> {
  layoutCache ??= (async () => {
    const system: HostLayout["system"] = [];
    for (const dir of SYSTEM_DIRS) {
      const info = await lstat(dir).catch(() => null);
      if (!info) continue;
      if (info.isSymbolicLink()) system.push({ path: dir, symlinkTo: await readlink(dir) });
      else if (info.isDirectory()) system.push({ path: dir });
    }
    const etc: string[] = [];
    for (const name of ETC_ALLOW) {
      const info = await stat(`/etc/${name}`).catch(() => null);
      // World-readable only: what an unprivileged user could read anyway.
      if (info && (info.mode & 0o004) !== 0) etc.push(`/etc/${name}`);
    }
    return { system, etc };
  })();
  return layoutCache;
}

function passwdFor(uid: number, gid: number): { passwd: string; group: string } {
  const passwd = [`root:x:0:0:root:/root:/usr/sbin/nologin`];
  const group = [`root:x:0:`];
  if (uid !== 65534) {
    passwd.push(`tackle:x:${uid}:${gid}:tackle:${SANDBOX_HOME}:/bin/bash`, "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin");
    group.push(`tackle:x:${gid}:`, "nogroup:x:65534:");
  } else {
    passwd.push(`tackle:x:65534:65534:tackle:${SANDBOX_HOME}:/bin/bash`);
    group.push("tackle:x:65534:");
  }
  return { passwd: `${passwd.join("\n")}\n`, group: `${group.join("\n")}\n` };
}

const STAGE_SCRIPT = [
  // No globbing: the paths checked below are split on spaces only (each is /proc/<pid>/fd/N or under the stage directory).
  "set -ef",
  "stage=$1; shift",
  'mount -t tmpfs -o mode=0755,size=64k,nosuid,nodev tackle-stage "$stage"',
  "i=0",
  'pairs=""',
  'while [ "$1" != "--" ]; do',
  '  if [ "$1" = d ]; then mkdir "$stage/$i"; else : > "$stage/$i"; fi',
  '  mount --bind "$2" "$stage/$i"',
  '  pairs="$pairs $2 $stage/$i"',
  "  shift 2; i=$((i + 1))",
  "done",
  // Each source is a descriptor the host opened without following links (/proc/<pid>/fd/N), but mount
  // binds the path it reads there: each bound file must be that very file (device and inode), or the
  // agent moved something on its path in between, and the command does not start.
  '[ -z "$pairs" ] || stat -L -c %d:%i $pairs | { while read -r want && read -r got; do [ "$want" = "$got" ] || { echo "tackle: a sandbox path moved while it was bound" >&2; exit 1; }; done; }',
  "shift",
  'exec "$@"',
].join("\n");

export function planBwrap(input: BwrapPlanInput): BwrapPlan {
  const { launcher } = input;
  const fds: ExtraFd[] = [];
  const fdFor = (extra: ExtraFd): number => fds.push(extra) + 2;
  const staged: Bind[] = [];
  // When root drops to an unprivileged uid, bubblewrap cannot reach paths under e.g. /root (0700):
  // the binds are first made, as root, in a private mount namespace under a world-traversable
  // stage directory, and bubblewrap binds them from there.
  const source = (bind: Bind): string => {
    if (launcher.kind !== "root-drop" || bind.byIdentity === true) return bind.src;
    staged.push(bind);
    return `${launcher.stageDir}/${staged.length - 1}`;
  };

  const args: string[] = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL"];
  const entersHolder = input.network === "joined" || input.network === "loopback";
  if (input.network === "host" || entersHolder) args.push("--share-net");
  args.push("--hostname", "tackle", "--clearenv");
  const { identity } = launcher;
  // Inside the (unprivileged) holder's user namespace Tackle may be uid 0; the sandbox gets its real uid back.
  const entersHolderUserns = entersHolder && launcher.kind === "unprivileged";
  if (entersHolderUserns) args.push("--uid", String(identity.uid), "--gid", String(identity.gid));

  for (const dir of input.layout.system) {
    if (dir.symlinkTo !== undefined) args.push("--symlink", dir.symlinkTo, dir.path);
    else args.push("--ro-bind", dir.path, dir.path);
  }
  for (const file of input.layout.etc) args.push("--ro-bind", file, file);
  const { passwd, group } = passwdFor(identity.uid, identity.gid);
  args.push("--ro-bind-data", String(fdFor({ kind: "data", content: passwd })), "/etc/passwd");
  args.push("--ro-bind-data", String(fdFor({ kind: "data", content: group })), "/etc/group");
  args.push("--ro-bind-data", String(fdFor({ kind: "data", content: "127.0.0.1 localhost tackle\n::1 localhost\n" })), "/etc/hosts");
  if (input.network === "host") {
    args.push("--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf");
  } else if (input.network === "joined") {
    // slirp4netns answers DNS on 10.0.2.3; the host's resolver (often 127.0.0.53) is not reachable.
    args.push("--ro-bind-data", String(fdFor({ kind: "data", content: "nameserver 10.0.2.3\n" })), "/etc/resolv.conf");
  }

  // The sandbox user cannot write these anyway; read-only mounts keep it so should a permission slip.
  // /sys is not mounted at all.
  args.push("--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger");
  args.push("--dev", "/dev");
  if (input.tmpDir !== undefined) args.push("--bind", source({ src: input.tmpDir, dest: "/tmp", kind: "dir" }), "/tmp");
  else args.push("--size", String(input.tmpBytes), "--tmpfs", "/tmp");
  args.push("--size", String(input.tmpBytes), "--tmpfs", "/var/tmp");
  if (input.homeDir !== undefined) args.push("--bind", source({ src: input.homeDir, dest: SANDBOX_HOME, kind: "dir" }), SANDBOX_HOME);
  else args.push("--tmpfs", SANDBOX_HOME);

  for (const bind of input.readOnly) args.push("--ro-bind", source(bind), bind.dest);
  for (const bind of input.writable) args.push("--bind", source(bind), bind.dest);
  for (const bind of input.readOnlyInside) args.push("--ro-bind", source(bind), bind.dest);
  // The skeleton bubblewrap builds (/, /etc, /home) is a tmpfs; freeze it once the binds are made.
  args.push("--remount-ro", "/", "--chdir", input.root);

  // The command's environment reaches bubblewrap through a pipe, not its argv: what a command is given
  // (a stdio MCP server's secret) does not show in the host's process list.
  const setenv = Object.entries(input.env).flatMap(([key, value]) => ["--setenv", key, value]);
  if (setenv.some((arg) => arg.includes("\0"))) throw new Error("an environment variable cannot hold a NUL byte");
  if (setenv.length > 0) args.push("--args", String(fdFor({ kind: "data", content: `${setenv.join("\0")}\0` })));
  // The sandbox's pid 1, to kill first: killing only the outer bubblewrap would orphan it.
  const infoFd = fdFor({ kind: "info" });
  args.push("--info-fd", String(infoFd));
  args.push("--", ...input.innerArgv);

  let argv = helperArgv("bwrap", args);
  if (launcher.kind === "root-drop") {
    const stageArgs = staged.flatMap((bind) => [bind.kind === "dir" ? "d" : "f", bind.src]);
    argv = helperArgv("unshare", [
      "--mount",
      "--propagation",
      "private",
      "--",
      helperPath("sh") ?? "/bin/sh",
      "-c",
      STAGE_SCRIPT,
      "tackle-stage",
      launcher.stageDir,
      ...stageArgs,
      "--",
      ...dropPrivileges(launcher.identity, argv),
    ]);
  }
  if (entersHolder) {
    if (input.holderPid === undefined) throw new Error(`network '${input.network}' needs the holder's pid`);
    // Unprivileged, the holder's user namespace is entered too: --preserve-credentials, since it maps
    // Tackle's uid to 0 and denies setgroups. As root, only the network namespace.
    const namespaces = entersHolderUserns ? ["--user", "--net", "--preserve-credentials"] : ["--net"];
    argv = helperArgv("nsenter", ["--target", String(input.holderPid), ...namespaces, "--", ...argv]);
  }
  return { argv, fds, infoFd };
}
