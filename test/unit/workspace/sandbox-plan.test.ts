import { describe, expect, it } from "vitest";
import { HELPERS, helperPath } from "../../../src/workspace/launch-privileged.js";
import { dropPrivileges, planBwrap as planAbsolute, type BwrapPlanInput, type HostLayout } from "../../../src/workspace/sandbox-plan.js";

const layout: HostLayout = {
  system: [{ path: "/usr" }, { path: "/bin", symlinkTo: "usr/bin" }, { path: "/lib", symlinkTo: "usr/lib" }],
  etc: ["/etc/ssl/certs", "/etc/ld.so.cache"],
};

function input(overrides: Partial<BwrapPlanInput> = {}): BwrapPlanInput {
  return {
    launcher: { kind: "unprivileged", identity: { uid: 1000, gid: 1000 } },
    layout,
    root: "/home/u/.tackle/checkouts/j1",
    writable: [
      { src: "/home/u/.tackle/checkouts/j1", dest: "/home/u/.tackle/checkouts/j1", kind: "dir" },
      { src: "/home/u/.tackle/checkouts/j1/.git", dest: "/home/u/.tackle/checkouts/j1/.git", kind: "dir" },
    ],
    readOnly: [{ src: "/home/u/.tackle/mirrors/h/o/r.git", dest: "/home/u/.tackle/mirrors/h/o/r.git", kind: "dir" }],
    readOnlyInside: [{ src: "/home/u/.tackle/checkouts/j1/.git/config", dest: "/home/u/.tackle/checkouts/j1/.git/config", kind: "file" }],
    env: { PATH: "/usr/bin", HOME: "/home/tackle" },
    network: "none",
    tmpBytes: 1024,
    innerArgv: ["bash", "-c", "true"],
    ...overrides,
  };
}

/** Helpers appear by absolute path; the assertions below name them by their names. */
function named(argv: readonly string[]): string[] {
  const names = new Map(HELPERS.flatMap((name) => (helperPath(name) === null ? [] : [[helperPath(name), name] as const])));
  return argv.map((arg) => names.get(arg) ?? arg);
}

function planBwrap(planInput: BwrapPlanInput) {
  const plan = planAbsolute(planInput);
  const [command = "", ...args] = named(plan.argv);
  return { ...plan, command, args };
}

function hasFlag(args: string[], flag: string, value: string): boolean {
  return args.some((arg, i) => arg === flag && args[i + 1] === value);
}

describe("bubblewrap plan", () => {
  it("isolates every namespace, clears the environment and dies with its parent", () => {
    const plan = planBwrap(input());
    expect(plan.command).toBe("bwrap");
    expect(planAbsolute(input()).argv[0]).toBe(helperPath("bwrap"));
    expect(helperPath("bwrap")).toMatch(/^\/(usr\/)?s?bin\/bwrap$/);
    for (const flag of ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--clearenv"]) {
      expect(plan.args).toContain(flag);
    }
    expect(hasFlag(plan.args, "--cap-drop", "ALL")).toBe(true);
    expect(plan.args).not.toContain("--share-net");
    // The environment comes through a pipe (--args), not the argv the host's process list shows.
    expect(plan.args).not.toContain("--setenv");
    const envFd = plan.fds[Number(plan.args[plan.args.indexOf("--args") + 1]) - 3];
    expect(envFd).toEqual({ kind: "data", content: "--setenv\0PATH\0/usr/bin\0--setenv\0HOME\0/home/tackle\0" });
    expect(plan.args.slice(-4)).toEqual(["--", "bash", "-c", "true"]);
  });

  it("binds system dirs read-only, the checkout read-write and git's settings read-only on top", () => {
    const { args } = planBwrap(input());
    expect(hasFlag(args, "--ro-bind", "/usr")).toBe(true);
    expect(hasFlag(args, "--symlink", "usr/bin")).toBe(true);
    expect(hasFlag(args, "--ro-bind", "/home/u/.tackle/mirrors/h/o/r.git")).toBe(true);
    expect(hasFlag(args, "--bind", "/home/u/.tackle/checkouts/j1")).toBe(true);
    const rw = args.indexOf("/home/u/.tackle/checkouts/j1/.git");
    const ro = args.lastIndexOf("/home/u/.tackle/checkouts/j1/.git/config");
    expect(rw).toBeGreaterThan(0);
    expect(ro).toBeGreaterThan(rw);
    expect(args).not.toContain("/root");
    expect(args).not.toContain("/etc");
    expect(hasFlag(args, "--proc", "/proc")).toBe(true);
    // Read-only over the fresh /proc, so after it; no /sys at all.
    expect(args.indexOf("/proc/sys")).toBeGreaterThan(args.indexOf("--proc"));
    expect(hasFlag(args, "--ro-bind", "/proc/sys")).toBe(true);
    expect(hasFlag(args, "--ro-bind-try", "/proc/sysrq-trigger")).toBe(true);
    expect(args.filter((arg) => arg === "/sys" || arg.startsWith("/sys/"))).toEqual([]);
    expect(hasFlag(args, "--tmpfs", "/tmp")).toBe(true);
    expect(hasFlag(args, "--tmpfs", "/home/tackle")).toBe(true);
    expect(hasFlag(args, "--remount-ro", "/")).toBe(true);
  });

  it("synthesises passwd, group and hosts, and a resolver only with network", () => {
    const offline = planBwrap(input());
    expect(offline.fds.map((fd) => fd.kind)).toEqual(["data", "data", "data", "data", "info"]);
    expect(hasFlag(offline.args, "--info-fd", "7")).toBe(true);
    const online = planBwrap(input({ network: "joined", holderPid: 4242 }));
    expect(online.fds.map((fd) => fd.kind)).toEqual(["data", "data", "data", "data", "data", "info"]);
    expect(online.fds[3]).toEqual({ kind: "data", content: "nameserver 10.0.2.3\n" });
    expect(hasFlag(online.args, "--info-fd", "8")).toBe(true);
    // bubblewrap never configures the namespace itself: slirp4netns has, before it starts.
    expect(online.args).not.toContain("--block-fd");
  });

  it("shares the host network only when asked to, with the host's resolver", () => {
    const { args, fds } = planBwrap(input({ network: "host" }));
    expect(args).toContain("--share-net");
    expect(hasFlag(args, "--ro-bind-try", "/etc/resolv.conf")).toBe(true);
    expect(fds.map((fd) => fd.kind)).toEqual(["data", "data", "data", "data", "info"]);
    expect(planBwrap(input()).args).not.toContain("--share-net");
  });

  it("unprivileged with a network: enters the holder's namespaces and keeps Tackle's uid inside", () => {
    const { command, args, fds } = planBwrap(input({ network: "joined", holderPid: 4242 }));
    expect(command).toBe("nsenter");
    expect(args.slice(0, 8)).toEqual(["--target", "4242", "--user", "--net", "--preserve-credentials", "--", "bwrap", "--unshare-all"]);
    expect(args).toContain("--share-net");
    expect(hasFlag(args, "--uid", "1000")).toBe(true);
    expect(fds[0]).toEqual({ kind: "data", content: expect.stringContaining("tackle:x:1000:1000:") });
    expect(fds[3]).toEqual({ kind: "data", content: "nameserver 10.0.2.3\n" });
  });

  it("in the job's loopback namespace: enters the holder's namespaces, with no resolver, and binds the job's /tmp", () => {
    const { command, args, fds } = planBwrap(input({ network: "loopback", holderPid: 4242, tmpDir: "/home/u/.tackle/checkouts/j1.tmp" }));
    expect(command).toBe("nsenter");
    expect(args.slice(0, 7)).toEqual(["--target", "4242", "--user", "--net", "--preserve-credentials", "--", "bwrap"]);
    expect(args).toContain("--share-net");
    expect(hasFlag(args, "--uid", "1000")).toBe(true);
    // Nothing to resolve names with: the namespace has a loopback and nothing else.
    expect(fds.map((fd) => fd.kind)).toEqual(["data", "data", "data", "data", "info"]);
    expect(args).not.toContain("/etc/resolv.conf");
    expect(hasFlag(args, "--bind", "/home/u/.tackle/checkouts/j1.tmp")).toBe(true);
    expect(args[args.indexOf("/home/u/.tackle/checkouts/j1.tmp") + 1]).toBe("/tmp");
    expect(hasFlag(args, "--tmpfs", "/tmp")).toBe(false);
    expect(hasFlag(args, "--tmpfs", "/var/tmp")).toBe(true);
    expect(() => planBwrap(input({ network: "loopback" }))).toThrow(/needs the holder's pid/);
  });

  it("as root with a network: enters only the holder's network namespace, then stages and drops as usual", () => {
    const drop = planBwrap(
      input({ network: "joined", holderPid: 4242, launcher: { kind: "root-drop", identity: { uid: 65534, gid: 65534 }, stageDir: "/tmp/.tackle-stage" } }),
    );
    expect(drop.command).toBe("nsenter");
    expect(drop.args.slice(0, 5)).toEqual(["--target", "4242", "--net", "--", "unshare"]);
    const bwrapArgs = drop.args.slice(drop.args.indexOf("bwrap"));
    expect(bwrapArgs).toContain("--share-net");
    expect(bwrapArgs).not.toContain("--uid");
    expect(drop.args.indexOf("setpriv")).toBeLessThan(drop.args.indexOf("bwrap"));
  });

  it("as root, stages binds in a private mount namespace and drops to the sandbox uid", () => {
    const plan = planBwrap(input({ launcher: { kind: "root-drop", identity: { uid: 65534, gid: 65534 }, stageDir: "/tmp/.tackle-stage" } }));
    expect(plan.command).toBe("unshare");
    expect(plan.args.slice(0, 4)).toEqual(["--mount", "--propagation", "private", "--"]);
    const setpriv = plan.args.indexOf("setpriv");
    expect(plan.args.slice(setpriv, setpriv + 9)).toEqual([
      "setpriv",
      "--reuid",
      "65534",
      "--regid",
      "65534",
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--no-new-privs",
    ]);
    const bwrapArgs = plan.args.slice(plan.args.indexOf("bwrap"));
    // Host paths reach bubblewrap only through the stage.
    expect(hasFlag(bwrapArgs, "--bind", "/tmp/.tackle-stage/1")).toBe(true);
    expect(bwrapArgs.filter((arg) => arg.startsWith("/home/u/.tackle") && !arg.includes("/checkouts/j1") && !arg.includes("/mirrors/"))).toEqual([]);
    const staged = plan.args.slice(plan.args.indexOf("/tmp/.tackle-stage") + 1, plan.args.indexOf("setpriv") - 1);
    expect(staged).toEqual([
      "d",
      "/home/u/.tackle/mirrors/h/o/r.git",
      "d",
      "/home/u/.tackle/checkouts/j1",
      "d",
      "/home/u/.tackle/checkouts/j1/.git",
      "f",
      "/home/u/.tackle/checkouts/j1/.git/config",
    ]);
  });

  it("drops root the same way in every mode: ids, groups, every capability set, no new privileges", () => {
    expect(named(dropPrivileges({ uid: 1000, gid: 100 }, ["bash", "-c", "true"]))).toEqual([
      "setpriv",
      "--reuid",
      "1000",
      "--regid",
      "100",
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--no-new-privs",
      "--",
      "bash",
      "-c",
      "true",
    ]);
  });
});
