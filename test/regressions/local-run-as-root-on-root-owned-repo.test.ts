/**
 * Issue #20, broken case 7 and its neighbours: a local run as root on a root-owned repository (the
 * usual case on a server or in a container). The rule is "agent commands never run as uid 0": they
 * run as the sandbox identity on a private copy. Checked from the host (the kernel's ids of every
 * process of a running command, its uid_map as the host reads it, the owner of a file it made),
 * since inside bubblewrap `/proc/self/uid_map` reads `65534 0 1`: the 0 there is bubblewrap's own
 * intermediate namespace (the one it mounts devpts from), which maps to 65534 on the host. Also: a
 * repository of uid 1000 but gid 0 no longer gives commands root's group; and root's hand-over into
 * a root-owned repository follows no symlink planted in its `.git` beforehand.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExecPort } from "../../src/agent/ports.js";
import { detectSandbox, openLocalWorkspace, type SandboxMode, type Workspace } from "../../src/workspace/index.js";
import { git, isRoot, removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const modes: SandboxMode[] = support.available ? ["bwrap", "off"] : ["off"];

/** Every process on the host whose command line holds `marker`: its kernel ids and uid_map, read from the host. */
function processesWith(marker: string): Array<{ uid: string; gid: string; uidMap: string | null }> {
  const found: Array<{ uid: string; gid: string; uidMap: string | null }> = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)) continue;
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const field = (name: string) => status.match(new RegExp(`^${name}:\\s+(.*)$`, "m"))?.[1] ?? "";
      // The host's own namespace maps every id to itself: only a namespace of the sandbox's has a map to check.
      const ownNamespace = readlinkSync(`/proc/${pid}/ns/user`) === readlinkSync("/proc/self/ns/user");
      found.push({ uid: field("Uid"), gid: field("Gid"), uidMap: ownNamespace ? null : readFileSync(`/proc/${pid}/uid_map`, "utf8") });
    } catch {
      // Gone meanwhile: not one of the command's (they wait for the gate).
    }
  }
  return found;
}

/**
 * Runs a command in `exec` that stops at a gate (a FIFO in the checkout), looks at its processes from
 * the host while it waits, then lets it finish. Returns what it printed and what the host saw.
 */
async function observe(exec: ExecPort, dir: string, marker: string) {
  const ready = path.join(dir, "ready.fifo");
  const gate = path.join(dir, "gate.fifo");
  await execa("mkfifo", ["-m", "666", ready, gate]);
  const running = exec.run(`echo ${marker}; id -u; id -g; touch made-by-command; echo up > ready.fifo; read line < gate.fifo; echo released`, {
    timeoutMs: 60_000,
  });
  await readFile(ready, "utf8");
  const seen = processesWith(marker);
  await writeFile(gate, "go\n");
  const result = await running;
  const made = statSync(path.join(dir, "made-by-command"));
  return { lines: result.output.split("\n"), seen, made };
}

describe.skipIf(!isRoot)("a local run as root never runs agent commands as uid or gid 0", () => {
  let base: string;
  let repo: string;
  let workspace: Workspace | undefined;
  let n = 0;

  beforeEach(async () => {
    base = tempDir("root-owned");
    chmodSync(base, 0o755);
    repo = path.join(base, "project");
    mkdirSync(repo);
    await git(repo, ["init", "--quiet", "-b", "main"], base);
    writeFileSync(path.join(repo, "README.md"), "hello\n");
    await git(repo, ["add", "-A"], base);
    await git(repo, ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "--quiet", "-m", "initial"], base);
  });
  afterEach(async () => {
    await workspace?.dispose();
    workspace = undefined;
    removeDir(base);
  });

  const open = async (sandbox: SandboxMode, options: { worktrees?: boolean } = {}) => {
    n += 1;
    workspace = await openLocalWorkspace({ repoPath: repo, branch: `tackle/local-root-${n}`, home: path.join(base, "home"), sandbox, ...options });
    return workspace;
  };

  const expectNeverRoot = (observed: Awaited<ReturnType<typeof observe>>, sandbox: SandboxMode) => {
    expect(observed.lines).toContain("released");
    const [, uid, gid] = observed.lines;
    expect(uid).not.toBe("0");
    expect(gid).not.toBe("0");
    expect(observed.seen.length).toBeGreaterThan(0);
    if (sandbox === "bwrap") expect(observed.seen.some((process) => process.uidMap !== null)).toBe(true);
    for (const process of observed.seen) {
      expect(process.uid.split(/\s+/)).not.toContain("0");
      expect(process.gid.split(/\s+/)).not.toContain("0");
      // In a user namespace the host reads where its ids lead on the host: never to 0.
      for (const line of process.uidMap?.trim().split("\n") ?? []) expect(line.trim().split(/\s+/)[1]).not.toBe("0");
    }
    expect(observed.made.uid).not.toBe(0);
    expect(observed.made.gid).not.toBe(0);
  };

  for (const sandbox of modes) {
    it(`root-owned repository, sandbox ${sandbox}: the kernel never sees uid or gid 0 in a command`, async () => {
      const ws = await open(sandbox);
      expectNeverRoot(await observe(ws.exec, ws.root, `marker-main-${sandbox}-${n}`), sandbox);
    });
  }

  it("root-owned repository: nor in an extra worktree of the Worktree tool", async () => {
    const ws = await open(modes[0]!, { worktrees: true });
    const created = await ws.worktrees!.port.create("extra");
    await ws.worktrees!.port.enter("extra");
    expectNeverRoot(await observe(ws.worktrees!.ports.exec, created.root, `marker-worktree-${n}`), modes[0]!);
  });

  for (const sandbox of modes) {
    it(`repository of uid 1000 and gid 0, sandbox ${sandbox}: commands do not get root's group`, async () => {
      await execa("chown", ["-R", "1000:0", repo]);
      const ws = await open(sandbox);
      expectNeverRoot(await observe(ws.exec, ws.root, `marker-gid-${sandbox}-${n}`), sandbox);
    });
  }
});

describe.skipIf(!isRoot)("root's hand-over into a root-owned repository follows no symlink planted in its .git", () => {
  let base: string;
  let repo: string;
  let rootDir: string;
  let rootFile: string;
  let workspace: Workspace | undefined;

  beforeEach(async () => {
    base = tempDir("root-owned-links");
    repo = path.join(base, "project");
    mkdirSync(repo);
    await git(repo, ["init", "--quiet", "-b", "main"], base);
    writeFileSync(path.join(repo, "README.md"), "hello\n");
    await git(repo, ["add", "-A"], base);
    await git(repo, ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "--quiet", "-m", "initial"], base);
    rootDir = path.join(base, "cron.daily");
    mkdirSync(rootDir);
    rootFile = path.join(base, "bashrc");
    writeFileSync(rootFile, "root's own\n");
  });
  afterEach(async () => {
    await workspace?.dispose();
    workspace = undefined;
    removeDir(base);
  });

  async function handOver(branch: string): Promise<unknown> {
    workspace = await openLocalWorkspace({ repoPath: repo, branch, home: path.join(base, "home"), sandbox: support.available ? "bwrap" : "off" });
    const made = await workspace.exec.run("echo change >> README.md && git commit -qam change && echo COMMITTED", { timeoutMs: 30_000 });
    expect(made.output).toContain("COMMITTED");
    return workspace.push({ verify: () => ({ action: "publish" }) }).catch((error: unknown) => error);
  }

  it("refs/heads/tackle linked elsewhere: refused, nothing written there", async () => {
    await execa("ln", ["-s", rootDir, path.join(repo, ".git", "refs", "heads", "tackle")]);
    const outcome = await handOver("tackle/local-link");
    expect(String((outcome as Error).message)).toMatch(/refs\/heads\/tackle is not a directory only root can write/);
    expect(readdirSync(rootDir)).toEqual([]);
  });

  it("objects/pack linked elsewhere: refused, no pack written there", async () => {
    await execa("sh", ["-c", `rmdir objects/pack && ln -s ${rootDir} objects/pack`], { cwd: path.join(repo, ".git") });
    const outcome = await handOver("tackle/local-pack");
    expect(String((outcome as Error).message)).toMatch(/objects\/pack is not a directory only root can write/);
    expect(readdirSync(rootDir)).toEqual([]);
  });

  it("the new ref's reflog linked to another file: refused, nothing appended", async () => {
    await execa("sh", ["-c", `mkdir -p logs/refs/heads/tackle && ln -s ${rootFile} logs/refs/heads/tackle/local-log`], { cwd: path.join(repo, ".git") });
    const outcome = await handOver("tackle/local-log");
    expect(String((outcome as Error).message)).toMatch(/already exists/);
    expect(readFileSync(rootFile, "utf8")).toBe("root's own\n");
  });

  it("a ref directory anybody may write: refused (anybody could swap a link in)", async () => {
    chmodSync(path.join(repo, ".git", "refs", "heads"), 0o777);
    const outcome = await handOver("tackle/local-open");
    expect(String((outcome as Error).message)).toMatch(/refs\/heads is not a directory only root can write/);
    expect(await git(repo, ["branch", "--list", "tackle/local-open"], base)).toBe("");
  });
});
