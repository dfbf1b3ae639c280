// The `tackle` bin as users run it, for the tests of the Probot conventions (.env, HOST, WEBHOOK_PATH,
// WEBHOOK_PROXY_URL, receive, setup): spawned with only the variables a user's shell would give it.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { cp } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { cleanGitEnv } from "../../fakes/index.js";

/**
 * `npm test` builds dist/ first. TACKLE_TEST_CLI points at a bundle built elsewhere inside the
 * checkout (`node scripts/build.mjs --outdir tmp/cli`), so a change can be tested without rebuilding dist/.
 */
export const CLI = path.resolve(process.env.TACKLE_TEST_CLI ?? "dist/cli.js");

const run = promisify(execFile);

/** Only what a user's shell would give the bin: PATH, HOME, and the variables the test names. */
export function shellEnv(home: string, extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ...extra };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `tackle ARGS` to its end. */
export async function runCli(args: string[], options: { env: Record<string, string>; cwd?: string; timeoutMs?: number }): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: options.env, cwd: options.cwd, timeout: options.timeoutMs ?? 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** A running `tackle` process and what it has printed so far. */
export interface CliProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in stdout+stderr; rejects when the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code. */
  exited(): Promise<number | null>;
  /** `signal` (SIGTERM), then SIGKILL after 10 s. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function spawnCli(args: string[], options: { env: Record<string, string>; cwd?: string }): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => out,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(out);
          if (!match) return;
          done();
          resolve(match);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${out}`));
        }, timeoutMs);
        const onExit = (code: number | null) => {
          done();
          reject(new Error(`tackle exited with ${code} before ${pattern}:\n${out}`));
        };
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off("exit", onExit);
        };
        listeners.add(check);
        child.once("exit", onExit);
        check();
        if (child.exitCode !== null && listeners.has(check)) onExit(child.exitCode);
      });
    },
    exited: () => exit,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** The demo repository as a user's local git repository, on main, for `tackle run --local`; `tempDir` makes (and later removes) its directories. */
export async function localDemoRepo(tempDir: (prefix: string) => Promise<string>): Promise<{ dir: string; git: (...args: string[]) => Promise<string> }> {
  const dir = await tempDir("tackle-local-repo-");
  await cp(path.resolve("examples/demo-repo"), dir, { recursive: true });
  const env = {
    ...cleanGitEnv(await tempDir("tackle-git-home-")),
    GIT_AUTHOR_NAME: "U",
    GIT_AUTHOR_EMAIL: "u@example.com",
    GIT_COMMITTER_NAME: "U",
    GIT_COMMITTER_EMAIL: "u@example.com",
  };
  const git = async (...args: string[]) => (await run("git", args, { cwd: dir, env })).stdout;
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("commit", "-q", "-m", "initial");
  return { dir, git };
}
