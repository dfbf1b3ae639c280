/**
 * Small real ports over a temporary git repository, for tool and policy tests. The sandboxed
 * ports of src/workspace/ replace these in production; these only need the same contracts.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { rgPath } from "@vscode/ripgrep";
import { execa } from "execa";
import { createPathGuard } from "../../../src/workspace/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import type {
  ExecPort,
  FsPort,
  GitPort,
  GitStatusEntry,
  IssuePort,
  IssueSnapshot,
  PullRequestRequest,
  PullRequestResult,
  PullsPort,
  SearchPort,
} from "../../../src/agent/ports.js";
import type { ToolCall, ToolCallResult, ToolContext } from "../../../src/agent/tools/tool.js";
import { coreTools, createPolicyEngine, createToolRegistry, denyingApprovalHandler } from "../../../src/agent/tools/index.js";
import type { ToolRegistryOptions } from "../../../src/agent/tools/index.js";

export interface TempRepo {
  root: string;
  home: string;
  env: Record<string, string>;
  git(...args: string[]): Promise<string>;
  write(relative: string, content: string | Buffer): Promise<void>;
  read(relative: string): Promise<string>;
  cleanup(): Promise<void>;
}

/** The environment without any GIT_* variable, with a throwaway HOME and no system config. */
function cleanEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("GIT_")) env[key] = value;
  }
  return { ...env, HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
}

/** A repository on branch `main` with one commit (README.md), and a job branch `tackle/issue-1` checked out. */
export async function createTempRepo(options: { jobBranch?: boolean } = {}): Promise<TempRepo> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "tackle-tools-")));
  const root = path.join(base, "repo");
  const home = path.join(base, "home");
  await mkdir(root);
  await mkdir(home);
  const env = cleanEnv(home);
  const git = async (...args: string[]) => (await execa("git", args, { cwd: root, env, extendEnv: false })).stdout;
  await git("init", "-q", "-b", "main");
  await git("config", "user.name", "Test");
  await git("config", "user.email", "test@example.com");
  await git("config", "commit.gpgsign", "false");
  await writeFile(path.join(root, "README.md"), "# demo\n");
  await git("add", "-A");
  await git("commit", "-q", "-m", "initial");
  if (options.jobBranch !== false) await git("switch", "-q", "-c", "tackle/issue-1");
  return {
    root,
    home,
    env,
    git,
    write: async (relative, content) => {
      const file = path.join(root, relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
    },
    read: (relative) => readFile(path.join(root, relative), "utf8"),
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/** The workspace's own path guard and guarded reader (nothing to pause: these tests start no background process). */
export function createFsPort(root: string): FsPort {
  return createPathGuard(root);
}

export function createExecPort(root: string, env: Record<string, string>): ExecPort {
  return {
    sandboxed: false,
    async run(command, options) {
      const started = performance.now();
      const max = options.maxOutputBytes ?? 1_000_000;
      const child = execa("bash", ["-c", command], {
        cwd: root,
        env: { ...env, ...options.env },
        extendEnv: false,
        buffer: false,
        all: true,
        detached: true,
        reject: false,
        ...(options.input === undefined ? { stdin: "ignore" as const } : { input: options.input }),
      });
      const chunks: Buffer[] = [];
      let kept = 0;
      let dropped = 0;
      child.all?.on("data", (chunk: Buffer) => {
        const room = max - kept;
        if (room > 0) {
          const part = chunk.subarray(0, room);
          chunks.push(part);
          kept += part.length;
        }
        dropped += Math.max(0, chunk.length - Math.max(0, room));
      });
      let timedOut = false;
      const killGroup = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup();
      }, options.timeoutMs);
      options.signal?.addEventListener("abort", killGroup, { once: true });
      const result = await child;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", killGroup);
      return {
        output: Buffer.concat(chunks).toString("utf8"),
        exitCode: timedOut || result.signal !== undefined ? null : (result.exitCode ?? null),
        timedOut,
        droppedBytes: dropped,
        durationMs: performance.now() - started,
      };
    },
  };
}

export function createSearchPort(root: string): SearchPort {
  return {
    onHost: true,
    async ripgrep(args, options) {
      const result = await execa(rgPath, [...args], {
        cwd: root,
        reject: false,
        stdin: "ignore",
        maxBuffer: options.maxOutputBytes ?? 10_000_000,
        ...(options.signal ? { cancelSignal: options.signal } : {}),
      });
      return {
        stdout: typeof result.stdout === "string" ? result.stdout : "",
        exitCode: result.isMaxBuffer ? 0 : (result.exitCode ?? 2),
        truncated: result.isMaxBuffer === true,
      };
    },
  };
}

export function createGitPort(root: string, env: Record<string, string>): GitPort {
  const git = async (args: string[], reject = true) => execa("git", args, { cwd: root, env, extendEnv: false, reject, stripFinalNewline: false });
  const text = async (args: string[]) => (await git(args)).stdout as string;

  const status = async (): Promise<GitStatusEntry[]> => {
    const out = await text(["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
    const parts = out.split("\0").filter((part) => part !== "");
    const entries: GitStatusEntry[] = [];
    for (let i = 0; i < parts.length; i += 1) {
      const part = parts[i] as string;
      const code = part.slice(0, 2);
      entries.push({ code, path: part.slice(3) });
      if (code.startsWith("R") || code.startsWith("C")) i += 1; // the rename's source path
    }
    return entries;
  };

  return {
    currentBranch: async () => (await text(["rev-parse", "--abbrev-ref", "HEAD"])).trim(),
    status,
    diff: async ({ staged, base }) => text(["diff", ...(staged ? ["--cached"] : []), ...(base ? [base] : [])]),
    log: async (count) => {
      const out = await text(["log", `-n${count}`, "--format=%H%x1f%s%x1f%an%x1f%aI"]);
      return out
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          const [sha = "", subject = "", author = "", date = ""] = line.split("\x1f");
          return { sha, subject, author, date };
        });
    },
    async commit(message, files) {
      await git(["add", "-A", "--", ...(files && files.length > 0 ? files : ["."])]);
      const staged = await git(["diff", "--cached", "--quiet"], false);
      if (staged.exitCode === 0) return null;
      await git(["commit", "-q", "-m", message]);
      return (await text(["rev-parse", "HEAD"])).trim();
    },
    listBranches: async () => (await text(["branch", "--format=%(refname:short)"])).split("\n").filter((line) => line !== ""),
    createBranch: async (name) => {
      await git(["branch", name]);
    },
    switchBranch: async (name) => {
      await git(["switch", "-q", name]);
    },
    async diffStat(base) {
      const numstat = await text(["diff", "--numstat", base]);
      const files: string[] = [];
      let lines = 0;
      for (const row of numstat.split("\n")) {
        const [added, deleted, file] = row.split("\t");
        if (file === undefined) continue;
        files.push(file);
        lines += (Number(added) || 0) + (Number(deleted) || 0);
      }
      const untracked = (await status()).filter((entry) => entry.code === "??").map((entry) => entry.path);
      for (const file of untracked) {
        files.push(file);
        const content = await readFile(path.join(root, file), "utf8").catch(() => "");
        lines += content === "" ? 0 : content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
      }
      return { files, lines };
    },
  };
}

export interface FakeIssuePort extends IssuePort {
  snapshot: IssueSnapshot;
  reports: string[];
}

export function createFakeIssuePort(snapshot: Partial<IssueSnapshot> = {}): FakeIssuePort {
  const port: FakeIssuePort = {
    snapshot: {
      number: 1,
      title: "Fix the thing",
      body: "The thing is broken.",
      state: "open",
      labels: ["tackle"],
      isPullRequest: false,
      comments: [],
      omittedComments: 0,
      ...snapshot,
    },
    reports: [],
    get: async () => port.snapshot,
    report: async ({ prose, footer }) => {
      port.reports.push(footer === undefined ? prose : `${prose}\n\n${footer}`);
      return { url: `https://github.com/o/r/issues/1#issuecomment-${port.reports.length}` };
    },
  };
  return port;
}

export interface FakePullsPort extends PullsPort {
  requests: PullRequestRequest[];
}

export function createFakePullsPort(): FakePullsPort {
  const port: FakePullsPort = {
    requests: [],
    createOrUpdate: async (request): Promise<PullRequestResult> => {
      port.requests.push(request);
      return { number: 7, url: "https://github.com/o/r/pull/7", created: true, message: "opened draft pull request #7" };
    },
  };
  return port;
}

export interface Harness {
  repo: TempRepo;
  ctx: ToolContext;
  issue: FakeIssuePort;
  pulls: FakePullsPort;
  abort: AbortController;
}

export async function createHarness(options: { jobBranch?: boolean } = {}): Promise<Harness> {
  const repo = await createTempRepo(options);
  const issue = createFakeIssuePort();
  const pulls = createFakePullsPort();
  const abort = new AbortController();
  const ctx: ToolContext = {
    fs: createFsPort(repo.root),
    exec: createExecPort(repo.root, repo.env),
    search: createSearchPort(repo.root),
    git: createGitPort(repo.root, repo.env),
    issue,
    pulls,
    state: { todos: [], notes: [] },
    baseBranch: "main",
    signal: abort.signal,
    logger: silentLogger,
  };
  return { repo, ctx, issue, pulls, abort };
}

/** Runs one call through a registry over the core tools (default policy, approvals denied). */
export async function callTool(ctx: ToolContext, name: string, input: unknown, options: Partial<ToolRegistryOptions> = {}): Promise<ToolCallResult> {
  const registry = createToolRegistry(coreTools(), {
    policy: createPolicyEngine(),
    approval: denyingApprovalHandler,
    ...options,
  });
  const [result] = await registry.runCalls([{ id: "call-1", name, input } satisfies ToolCall], ctx);
  if (result === undefined) throw new Error("no result");
  return result;
}

/** A tool context over a prepared workspace's own ports, with fake issue and pull request ports. */
export function workspaceContext(workspace: Pick<ToolContext, "fs" | "exec" | "search" | "git">): ToolContext {
  return {
    fs: workspace.fs,
    exec: workspace.exec,
    search: workspace.search,
    git: workspace.git,
    issue: createFakeIssuePort(),
    pulls: createFakePullsPort(),
    state: { todos: [], notes: [] },
    baseBranch: "main",
    signal: new AbortController().signal,
    logger: silentLogger,
  };
}
