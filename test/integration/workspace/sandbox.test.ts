import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { createSandboxExec, detectSandbox, type Sandbox } from "../../../src/workspace/index.js";
import { isRoot, processesMatching, removeDir, startCanaryServer, tempDir } from "./helpers.js";

const support = await detectSandbox();

/** Host secrets the sandbox must never see: planted in this process's environment and on disk. */
const CANARY_ENV = "canary-env-7f3a9c";
process.env.CANARY_TOKEN = CANARY_ENV;
process.env.GITHUB_TOKEN_CANARY = `${CANARY_ENV}-gh`;

function unique(label: string): string {
  return `${label}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Run inside the sandbox: who the command is, its effective capabilities, and writes to the kernel's
 * knobs that must fail. core_pattern gets its own value back, so even a broken sandbox changes nothing.
 */
const HARDENING_PROBE = [
  "id -u",
  "grep '^CapEff:' /proc/self/status",
  'v=$(cat /proc/sys/kernel/core_pattern); printf "%s\\n" "$v" > /proc/sys/kernel/core_pattern && echo CORE-PATTERN-WRITTEN',
  "[ -w /proc/sysrq-trigger ] && echo SYSRQ-WRITABLE",
  "touch /sys/kernel/tackle-probe && echo SYS-WRITTEN",
  "grep -E '^[0-9]+ [0-9]+ [^ ]+ [^ ]+ /proc/sys ' /proc/self/mountinfo | cut -d' ' -f6 | sed 's/^/proc-sys-mount /'",
  "echo end",
].join("; ");

/** `readOnlyProc`: under bubblewrap /proc/sys is a read-only mount, not only closed by permissions. */
function expectHardened(output: string, uid: number, options: { readOnlyProc: boolean }): void {
  const lines = output.split("\n");
  expect(lines[0], output).toBe(String(uid));
  expect(lines[0]).not.toBe("0");
  expect(output).toMatch(/^CapEff:\s+0000000000000000$/m);
  expect(output).toContain("end");
  for (const marker of ["CORE-PATTERN-WRITTEN", "SYSRQ-WRITABLE", "SYS-WRITTEN"]) expect(output).not.toContain(marker);
  if (options.readOnlyProc) {
    expect(output).toMatch(/core_pattern: Read-only file system/);
    expect(output).toMatch(/^proc-sys-mount ro,/m);
  }
}

/** Tries to start 300 background sleeps; bash reports the first refused fork at once, then retries. */
function sleepFlood(seconds: string): string {
  return `for i in $(seq 1 300); do sleep ${seconds} & done; echo ALL-STARTED`;
}

/** Processes whose command line is exactly `sleep <seconds>`. */
function sleepsRunning(seconds: string): number {
  return processesMatching(`sleep ${seconds}`).filter((line) => line.slice(line.indexOf(": ") + 2) === `sleep ${seconds}`).length;
}

/** Runs `work` while counting, from the host, how many of its sleeps run at once. */
async function peakSleeps<T>(seconds: string, work: Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = 0;
  let finished = false;
  const done = work.finally(() => {
    finished = true;
  });
  while (!finished) {
    peak = Math.max(peak, sleepsRunning(seconds));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { result: await done, peak };
}

/** Tasks (threads included, as RLIMIT_NPROC counts them) whose real uid is `uid`, host-wide. */
function tasksOf(uid: number): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const real = /^Uid:\s+(\d+)/m.exec(status)?.[1];
      if (Number(real) === uid) total += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

const ownUid = process.getuid?.() ?? 0;
/** Who commands run as: the default sandbox identity when the tests run as root. */
const commandUid = isRoot ? 65534 : ownUid;

async function gone(needle: string): Promise<string[]> {
  // The kernel tears a pid namespace down asynchronously; give it a moment.
  for (let i = 0; i < 20; i += 1) {
    const left = processesMatching(needle);
    if (left.length === 0) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return processesMatching(needle);
}

describe.skipIf(!support.available)("bubblewrap sandbox", () => {
  let home: string;
  let root: string;
  let otherJob: string;
  let keyFile: string;
  let sandbox: Sandbox;

  beforeAll(() => {
    home = tempDir("sandbox-home");
    root = path.join(home, "checkouts", "job-a");
    otherJob = path.join(home, "checkouts", "job-b");
    mkdirSync(root, { recursive: true });
    mkdirSync(otherJob, { recursive: true });
    writeFileSync(path.join(otherJob, "notes.txt"), "other job's private work\n");
    mkdirSync(path.join(home, "keys"));
    keyFile = path.join(home, "keys", "id_ed25519");
    writeFileSync(keyFile, "-----BEGIN OPENSSH PRIVATE KEY----- canary-key-material\n", { mode: 0o644 });
    writeFileSync(path.join(root, "README.md"), "hello\n");
    symlinkSync("/etc/passwd", path.join(root, "passwd-link"));
    symlinkSync(keyFile, path.join(root, "key-link"));
    if (isRoot) chownSync(root, 65534, 65534);
    sandbox = createSandboxExec({ root, mode: "bwrap" });
  });

  afterAll(() => removeDir(home));

  it("runs commands as an unprivileged user in the worktree, sandboxed", async () => {
    expect(sandbox.sandboxed).toBe(true);
    const result = await sandbox.run("id -u; pwd; touch written && echo wrote", { timeoutMs: 20_000 });
    expect(result.exitCode).toBe(0);
    const [uid, cwd, wrote] = result.output.trim().split("\n");
    if (isRoot) expect(uid).toBe("65534");
    expect(cwd).toBe(root);
    expect(wrote).toBe("wrote");
  });

  it("shows no host environment, in env or in any /proc/*/environ", async () => {
    const result = await sandbox.run("env; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done; echo done", { timeoutMs: 20_000 });
    expect(result.output).toContain("done");
    expect(result.output).toContain("HOME=/home/tackle");
    expect(result.output).not.toContain(CANARY_ENV);
    for (const name of ["ANTHROPIC_API_KEY", "GITHUB_TOKEN", "VITEST", "npm_"]) expect(result.output).not.toContain(name);
    if (process.env.HOME) expect(result.output).not.toContain(`HOME=${process.env.HOME}\n`);
  });

  it("cannot see /root, the host HOME, TACKLE_HOME, another job's checkout or a private key", async () => {
    const hostHome = process.env.HOME ?? "/root";
    const result = await sandbox.run(
      [
        "ls /root && echo ROOT-VISIBLE",
        `ls ${hostHome} && echo HOSTHOME-VISIBLE`,
        `cat ${keyFile} && echo KEY-VISIBLE`,
        "cat key-link && echo KEYLINK-VISIBLE",
        `cat ${path.join(otherJob, "notes.txt")} && echo OTHERJOB-VISIBLE`,
        `ls ${path.join(home, "checkouts")}`,
        "ls /work && echo WORK-VISIBLE",
        "echo end",
      ].join("; "),
      { timeoutMs: 20_000 },
    );
    expect(result.output).toContain("end");
    for (const marker of ["ROOT-VISIBLE", "HOSTHOME-VISIBLE", "KEY-VISIBLE", "KEYLINK-VISIBLE", "OTHERJOB-VISIBLE", "WORK-VISIBLE"]) {
      expect(result.output).not.toContain(marker);
    }
    expect(result.output).not.toContain("canary-key-material");
    expect(result.output).not.toContain("other job's private work");
    // Only this job's checkout exists under checkouts/.
    expect(result.output).toContain("job-a");
    expect(result.output).not.toMatch(/^job-b$/m);
  });

  it("a repository symlink to /etc/passwd shows the sandbox's own passwd, not the host's", async () => {
    const hostPasswd = readFileSync("/etc/passwd", "utf8");
    const hostOnly = hostPasswd.split("\n").filter((line) => line && !/^(root|nobody):/.test(line));
    const hostRoot = hostPasswd.split("\n").find((line) => line.startsWith("root:")) ?? "";
    const result = await sandbox.run("cat passwd-link; cat /etc/shadow && echo SHADOW-VISIBLE", { timeoutMs: 20_000 });
    expect(result.output).toContain("tackle:x:");
    // Generated: root has no login shell in the sandbox, whatever the host says.
    expect(result.output).toMatch(/^root:x:0:0:root:\/root:\/usr\/sbin\/nologin$/m);
    if (hostRoot !== "root:x:0:0:root:/root:/usr/sbin/nologin") expect(result.output).not.toContain(hostRoot);
    expect(result.output).not.toContain("SHADOW-VISIBLE");
    for (const line of hostOnly) expect(result.output).not.toContain(line);
  });

  it("has no network at all by default: a host loopback server records nothing", async () => {
    const server = await startCanaryServer();
    try {
      const result = await sandbox.run(
        `curl -sS -m 3 http://127.0.0.1:${server.port}/ && echo REACHED; cat /proc/net/route | wc -l; ls /sys/class/net 2>/dev/null || cat /proc/net/dev`,
        { timeoutMs: 20_000 },
      );
      expect(result.output).not.toContain("REACHED");
      expect(result.output).not.toContain("host secret page");
      expect(result.output).not.toMatch(/eth0|tap0/);
      expect(server.hits).toBe(0);
    } finally {
      await server.close();
    }
  });

  // Never skipped: where slirp4netns cannot run, setup steps would have no network, and this must fail.
  it("network: true gives a NAT interface but no route to the host's loopback or private ranges", async () => {
    expect(support.network, support.detail).toBe(true);
    const server = await startCanaryServer();
    try {
      const result = await sandbox.run(
        [
          "cat /proc/net/route",
          `curl -sS -m 3 http://127.0.0.1:${server.port}/ && echo REACHED-LOOPBACK`,
          `curl -sS -m 3 http://10.0.2.2:${server.port}/ && echo REACHED-GATEWAY`,
          "curl -sS -m 3 http://169.254.169.254/ && echo REACHED-METADATA",
          "echo end",
        ].join("; "),
        { timeoutMs: 30_000, network: true },
      );
      expect(result.output).toContain("end");
      // A default route through slirp's tap0...
      expect(result.output).toMatch(/^tap0\s+00000000\s+0202000A/m);
      // ...and blackholes for link-local (169.254.0.0/16) and 10.0.0.0/8 (slirp's own /24 excepted).
      expect(result.output).toMatch(/^\*\s+0000FEA9\s/m);
      expect(result.output).toMatch(/^\*\s+0000000A\s/m);
      for (const marker of ["REACHED-LOOPBACK", "REACHED-GATEWAY", "REACHED-METADATA", "host secret page"]) {
        expect(result.output).not.toContain(marker);
      }
      expect(server.hits).toBe(0);
      expect(await gone("slirp4netns")).toEqual([]);
    } finally {
      await server.close();
    }
  });

  // Regression: slirp4netns used to configure the sandbox's own namespace while bubblewrap was still
  // setting up its loopback there, and about one start in seven failed.
  it("network: true starts reliably, many times in a row", async () => {
    for (let i = 0; i < 25; i += 1) {
      const result = await sandbox.run("grep -c tap0 /proc/net/route", { timeoutMs: 20_000, network: true });
      expect(result.output, `start ${i}`).toBe("2\n");
    }
    expect(await gone("slirp4netns")).toEqual([]);
  });

  // Regression: bubblewrap killed before it read its --ro-bind-data pipes left an ECONNRESET on them
  // that nothing handled, which vitest reports (and which would crash Tackle).
  it("a command killed while bubblewrap starts leaves no unhandled error behind", async () => {
    for (let i = 0; i < 20; i += 1) {
      const result = await sandbox.run("true", { timeoutMs: 1, network: i % 2 === 0 });
      expect(result.exitCode === 0 || result.timedOut).toBe(true);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  });

  it("cannot create user namespaces or write outside the worktree and its private /tmp", async () => {
    const marker = unique("tmpfile");
    const result = await sandbox.run(
      `unshare -U true && echo USERNS; touch /usr/x && echo USR; touch /etc/x && echo ETC; echo hi > /tmp/${marker} && echo TMP-OK; echo end`,
      { timeoutMs: 20_000 },
    );
    expect(result.output).toContain("end");
    expect(result.output).toContain("TMP-OK");
    for (const bad of ["USERNS", "USR\n", "ETC\n"]) expect(result.output).not.toContain(bad);
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
  });

  it("applies process, memory and file-size limits", async () => {
    const limited = createSandboxExec({ root, mode: "bwrap", limits: { processes: 77, memoryBytes: 512 * 1024 ** 2, fileBytes: 10 * 1024 ** 2 } });
    const result = await limited.run(
      "ulimit -u; ulimit -d; ulimit -f; python3 -c 'x = bytearray(1024**3)' 2>&1 | tail -1; head -c 20000000 /dev/zero > big 2>/dev/null; stat -c %s big; rm -f big",
      { timeoutMs: 30_000 },
    );
    const lines = result.output.trim().split("\n");
    expect(lines.slice(0, 3)).toEqual(["77", String(512 * 1024), String(10 * 1024)]);
    expect(result.output).toContain("MemoryError");
    expect(lines.at(-1)).toBe(String(10 * 1024 * 1024));
  });

  it("inside: not uid 0, no capabilities, /proc/sys and /proc/sysrq-trigger read-only, no /sys", async () => {
    const result = await sandbox.run(HARDENING_PROBE, { timeoutMs: 20_000 });
    expectHardened(result.output, commandUid, { readOnlyProc: true });
  });

  it("RLIMIT_NPROC bounds the number of processes actually running, not only what ulimit prints", async () => {
    const seconds = `1000.${Math.floor(Math.random() * 1e6)}`;
    const limited = createSandboxExec({ root, mode: "bwrap", limits: { processes: 40 } });
    const { result, peak } = await peakSleeps(seconds, limited.run(sleepFlood(seconds), { timeoutMs: 4_000 }));
    expect(result.output).toContain("Resource temporarily unavailable");
    expect(result.output).not.toContain("ALL-STARTED");
    // Counted in the sandbox's own user namespace: bubblewrap's pid 1 and bash take two of the 40.
    expect(peak).toBeLessThanOrEqual(40);
    expect(peak).toBeGreaterThanOrEqual(30);
    expect(await gone(`sleep ${seconds}`)).toEqual([]);
  });

  it("bounds a fork bomb: the command returns and nothing is left running", async () => {
    const marker = unique("forkbomb");
    const limited = createSandboxExec({ root, mode: "bwrap", limits: { processes: 64 } });
    const started = Date.now();
    const result = await limited.run(`: ${marker}; bomb() { bomb | bomb & }; bomb; sleep 30`, { timeoutMs: 5_000 });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.timedOut).toBe(true);
    expect(await gone(marker)).toEqual([]);
    const after = await sandbox.run("echo alive", { timeoutMs: 20_000 });
    expect(after.output.trim()).toBe("alive");
  });

  it("truncates a flood of output and counts what it dropped", async () => {
    const result = await sandbox.run("head -c 50000000 /dev/zero | tr '\\0' a", { timeoutMs: 60_000, maxOutputBytes: 100_000 });
    expect(result.exitCode).toBe(0);
    expect(result.droppedBytes).toBe(50_000_000 - 100_000);
    expect(result.output.length).toBeLessThan(100_000 + 200);
    expect(result.output).toContain("bytes of output omitted");
  });

  it("kills a command whose output keeps coming past the hard ceiling", async () => {
    const marker = unique("yes");
    const flood = createSandboxExec({ root, mode: "bwrap", limits: { killAfterOutputBytes: 20 * 1024 ** 2 } });
    const result = await flood.run(`yes ${marker}`, { timeoutMs: 60_000, maxOutputBytes: 10_000 });
    expect(result.exitCode).toBeNull();
    expect(result.timedOut).toBe(false);
    expect(result.output).toContain("[killed: more than");
    expect(result.droppedBytes).toBeGreaterThan(10 * 1024 ** 2);
    expect(await gone(marker)).toEqual([]);
  });

  it("kills the whole tree at the timeout, including detached and setsid children", async () => {
    const seconds = `1000.${Math.floor(Math.random() * 1e6)}`;
    const started = Date.now();
    const result = await sandbox.run(`(setsid sleep ${seconds} &); nohup sleep ${seconds} >/dev/null 2>&1 & sleep ${seconds}`, { timeoutMs: 1_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.output).toContain("timed out");
    expect(await gone(`sleep ${seconds}`)).toEqual([]);
  });

  it("does not wait for background jobs once the command itself is done", async () => {
    const seconds = `1000.${Math.floor(Math.random() * 1e6)}`;
    const started = Date.now();
    const result = await sandbox.run(`sleep ${seconds} & echo started`, { timeoutMs: 30_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.output.trim()).toBe("started");
    expect(result.exitCode).toBe(0);
    expect(await gone(`sleep ${seconds}`)).toEqual([]);
  });

  it("stops a command when the signal aborts", async () => {
    const seconds = `1000.${Math.floor(Math.random() * 1e6)}`;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const error = await sandbox.run(`sleep ${seconds}`, { timeoutMs: 60_000, signal: controller.signal }).catch((e: unknown) => e);
    expect(isTackleError(error, "aborted")).toBe(true);
    expect(await gone(`sleep ${seconds}`)).toEqual([]);
  });

  it("reports the exit code and interleaves stdout and stderr", async () => {
    const result = await sandbox.run("echo one; echo two >&2; echo three; exit 3", { timeoutMs: 20_000 });
    expect(result.exitCode).toBe(3);
    expect(result.output).toBe("one\ntwo\nthree\n");
    expect(result.droppedBytes).toBe(0);
  });

  it("passes per-command env but refuses invalid names", async () => {
    const result = await sandbox.run("echo $FOO", { timeoutMs: 20_000, env: { FOO: "bar" } });
    expect(result.output.trim()).toBe("bar");
    await expect(sandbox.run("true", { timeoutMs: 1000, env: { "BAD NAME": "x" } })).rejects.toThrow(/invalid environment/);
  });
});

describe("sandbox mode off", () => {
  let root: string;
  let homeDir: string;
  beforeAll(() => {
    root = tempDir("sandbox-off", { sandboxWritable: true });
    homeDir = tempDir("sandbox-off-home", { sandboxWritable: true });
  });
  afterAll(() => {
    removeDir(root);
    removeDir(homeDir);
  });

  it("never runs as root: as root, commands run as the sandbox identity, HOME the job's home", async () => {
    const off = createSandboxExec({ root, mode: "off", homeDir });
    const result = await off.run('id -u; id -G; echo "$HOME"; touch made && stat -c %u made; touch "$HOME/h" && echo HOME-WRITABLE', { timeoutMs: 10_000 });
    expect(result.exitCode, result.output).toBe(0);
    const [uid, groups, home, owner, homeWritable] = result.output.trim().split("\n");
    expect(uid).toBe(String(commandUid));
    // No supplementary groups left from root.
    if (isRoot) expect(groups).toBe("65534");
    expect(home).toBe(homeDir);
    expect(owner).toBe(String(commandUid));
    expect(homeWritable).toBe("HOME-WRITABLE");
  });

  it("inside: not uid 0, no capabilities, and /proc/sys, /proc/sysrq-trigger and /sys are not writable", async () => {
    const off = createSandboxExec({ root, mode: "off" });
    const result = await off.run(HARDENING_PROBE, { timeoutMs: 10_000 });
    expectHardened(result.output, commandUid, { readOnlyProc: false });
  });

  it("RLIMIT_NPROC bounds the number of processes actually running (counted host-wide for the uid)", async () => {
    const seconds = `1000.${Math.floor(Math.random() * 1e6)}`;
    // Without a user namespace the limit counts every task of the uid: allow 40 more than it has now.
    const processes = tasksOf(commandUid) + 40;
    const off = createSandboxExec({ root, mode: "off", limits: { processes } });
    const { result, peak } = await peakSleeps(seconds, off.run(sleepFlood(seconds), { timeoutMs: 4_000 }));
    expect(result.output).toContain("Resource temporarily unavailable");
    expect(result.output).not.toContain("ALL-STARTED");
    expect(peak).toBeLessThanOrEqual(processes);
    expect(peak).toBeGreaterThanOrEqual(10);
    expect(await gone(`sleep ${seconds}`)).toEqual([]);
  });

  it.skipIf(!isRoot)("as root, refuses a checkout the sandbox identity cannot reach, naming the directory", async () => {
    const closed = tempDir("sandbox-off-closed");
    try {
      chmodSync(closed, 0o700);
      const inner = path.join(closed, "checkout");
      mkdirSync(inner);
      chownSync(inner, 65534, 65534);
      const off = createSandboxExec({ root: inner, mode: "off" });
      const error = await off.run("true", { timeoutMs: 10_000 }).catch((e: unknown) => e);
      expect(isTackleError(error, "sandbox_unavailable")).toBe(true);
      expect(String(error)).toContain(`${closed} is closed to it`);
      expect(statSync(closed).mode & 0o777).toBe(0o700);
    } finally {
      removeDir(closed);
    }
  });

  it("runs bash with a cleared environment and kills the process group at the timeout", async () => {
    const off = createSandboxExec({ root, mode: "off" });
    expect(off.sandboxed).toBe(false);
    const env = await off.run("env", { timeoutMs: 10_000 });
    expect(env.output).not.toContain(CANARY_ENV);
    expect(env.output).toContain("LANG=C.UTF-8");
    const seconds = `1000.${Math.floor(Math.random() * 1e6)}`;
    const result = await off.run(`sleep ${seconds} & sleep ${seconds}`, { timeoutMs: 500 });
    expect(result.timedOut).toBe(true);
    expect(await gone(`sleep ${seconds}`)).toEqual([]);
  });
});

/** Runs `body` in a Node process as uid 65534 with `createSandboxExec` in scope; returns its last JSON line. */
async function asUnprivilegedTackle<T>(root: string, body: string): Promise<T> {
  const { execa } = await import("execa");
  const script = `
    const { createSandboxExec } = await import(${JSON.stringify(path.resolve("src/workspace/sandbox.ts"))});
    ${body}
  `;
  const result = await execa(
    "setpriv",
    ["--reuid", "65534", "--regid", "65534", "--clear-groups", "node", "--import", "tsx", "--input-type=module", "-e", script],
    {
      cwd: process.cwd(),
      env: { PATH: "/usr/bin:/bin", HOME: root, CANARY_TOKEN: CANARY_ENV },
      extendEnv: false,
      reject: false,
    },
  );
  return JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as T;
}

describe.skipIf(!isRoot || !support.available)("bubblewrap sandbox started by an unprivileged Tackle (as in the Docker image)", () => {
  it("inside: not uid 0, no capabilities, /proc/sys read-only; RLIMIT_NPROC bounds the processes running", async () => {
    const root = tempDir("unprivileged", { sandboxWritable: true });
    const seconds = `1000.${Math.floor(Math.random() * 1e6)}`;
    try {
      const body = `
        const sandbox = createSandboxExec({ root: ${JSON.stringify(root)}, mode: "bwrap", limits: { processes: 40 } });
        const probe = await sandbox.run(${JSON.stringify(HARDENING_PROBE)}, { timeoutMs: 20000 });
        const flood = await sandbox.run(${JSON.stringify(sleepFlood(seconds))}, { timeoutMs: 4000 });
        console.log(JSON.stringify({ probe: probe.output, flood: flood.output }));
      `;
      const { result, peak } = await peakSleeps(seconds, asUnprivilegedTackle<{ probe: string; flood: string }>(root, body));
      expectHardened(result.probe, 65534, { readOnlyProc: true });
      expect(result.flood).toContain("Resource temporarily unavailable");
      expect(result.flood).not.toContain("ALL-STARTED");
      expect(peak).toBeLessThanOrEqual(40);
      expect(peak).toBeGreaterThanOrEqual(30);
      expect(await gone(`sleep ${seconds}`)).toEqual([]);
    } finally {
      removeDir(root);
    }
  });

  it("runs as that user with the same isolation, and network: true either works restricted or fails closed", async () => {
    const root = tempDir("unprivileged", { sandboxWritable: true });
    const server = await startCanaryServer();
    try {
      const body = `
        const sandbox = createSandboxExec({ root: ${JSON.stringify(root)}, mode: "bwrap" });
        const plain = await sandbox.run("id -u; ls /root 2>/dev/null || echo NO-ROOT; touch made && stat -c %u made", { timeoutMs: 20000 });
        const net = await sandbox
          .run("cat /proc/net/route; curl -sS -m 3 http://127.0.0.1:${server.port}/ && echo REACHED", { timeoutMs: 30000, network: true })
          .then((r) => r.output, (e) => "ERROR " + e.message);
        console.log(JSON.stringify({ plain: plain.output, net }));
      `;
      const { plain, net } = await asUnprivilegedTackle<{ plain: string; net: string }>(root, body);
      expect(plain.trim().split("\n")).toEqual(["65534", "NO-ROOT", "65534"]);
      if (net.startsWith("ERROR")) expect(net).toMatch(/restricted network .* needs slirp4netns/);
      else expect(net).toMatch(/^tap0\s+00000000\s+0202000A/m);
      expect(net).not.toContain("REACHED");
      expect(server.hits).toBe(0);
    } finally {
      await server.close();
      removeDir(root);
    }
  });
});
