// The built `tackle` bin, spawned the way users run it, with only the contract's environment variables.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, startFakeGitHub } from "../../fakes/index.js";
import { binWebhookUrl, demoRepoFiles, fixTemperatureScript, OWNER, REPO, tempDirIn } from "./harness.js";
import { localDemoRepo } from "./cli-process.js";
import { sendAssigned } from "./trigger-helpers.js";

const run = promisify(execFile);
const CLI = path.resolve("dist/cli.js");
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(async () => {
  // `npm test` builds first; fail loudly rather than test a stale bundle.
  await readFile(CLI);
});

const tempDir = (prefix: string): Promise<string> => tempDirIn(cleanups, prefix);

/** Only what a user's shell would give the bin: PATH, HOME, and the contract's variables. */
function contractEnv(home: string, extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ...extra };
}

async function runCli(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("tackle CLI", () => {
  it("prints usage and per-command help; rejects unknown commands and missing options with exit 2", async () => {
    const home = await tempDir("tackle-cli-home-");
    const env = contractEnv(home, {});
    const help = await runCli(["--help"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("tackle server");
    expect(help.stdout).toContain("tackle run --local PATH");
    for (const command of ["server", "worker", "run", "doctor"]) {
      const sub = await runCli([command, "--help"], env);
      expect(sub.code).toBe(0);
      expect(sub.stdout).toContain(`tackle ${command}`);
    }
    const unknown = await runCli(["frobnicate"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const missing = await runCli(["run", "--task", "x"], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--local PATH is required");
    const noKey = await runCli(["run", "--local", home, "--task", "x"], env);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("ANTHROPIC_API_KEY is not set");
  });

  it("the README's demo: a fix on a new branch and a patch file, with no key, no Redis, no network", async () => {
    const home = await tempDir("tackle-demo-home-");
    const { stdout } = await run(process.execPath, [path.resolve("scripts/demo.mjs")], {
      env: contractEnv(home, { TACKLE_HOME: home }),
      timeout: 120_000,
    });
    expect(stdout).toContain("hand-written scripted session");
    const patchLine = stdout.split("\n").find((line) => line.startsWith("patch: "));
    expect(patchLine).toBeDefined();
    const patch = await readFile(patchLine!.slice("patch: ".length).trim(), "utf8");
    expect(patch).toContain("-  return (celsius * 9) / 5 + 23;");
    expect(patch).toContain("+  return (celsius * 9) / 5 + 32;");
    const branch = stdout.split("\n").find((line) => line.startsWith("branch: tackle/local-"));
    expect(branch).toMatch(/\(1 commit\)/);
    // What the demo shows at the end is the fix commit, not the repository's first commit.
    const shown = stdout.slice(stdout.indexOf("The fix, as the patch file holds it"));
    expect(shown).toContain("+  return (celsius * 9) / 5 + 32;");
    expect(shown).not.toContain("new file mode");
  });

  it("run --local with a model API key: commits on tackle/local-*, leaves the user's tree untouched, exits 0", async () => {
    const model = await startFakeAnthropic(fixTemperatureScript(), { minCacheableTokens: 0 });
    cleanups.push(() => model.close());
    const home = await tempDir("tackle-run-home-");
    const repo = await localDemoRepo(tempDir);
    const result = await runCli(
      ["run", "--local", repo.dir, "--task", "celsiusToFahrenheit(100) returns 203, not 212"],
      contractEnv(home, {
        TACKLE_HOME: home,
        ANTHROPIC_API_KEY: model.apiKey,
        ANTHROPIC_BASE_URL: model.url,
      }),
    );
    expect(result.stderr).not.toMatch(/tackle: (?!warning)/);
    expect(result.code).toBe(0);
    const branches = (await repo.git("branch", "--list", "tackle/local-*")).trim();
    expect(branches).toMatch(/tackle\/local-celsiustofahrenheit/);
    const branch = branches.replace(/^[*+ ]+/, "");
    expect(await repo.git("show", `${branch}:src/temperature.js`)).toContain("/ 5 + 32;");
    // The user's own checkout is untouched and still on main.
    expect(await readFile(path.join(repo.dir, "src/temperature.js"), "utf8")).toContain("/ 5 + 23;");
    expect((await repo.git("rev-parse", "--abbrev-ref", "HEAD")).trim()).toBe("main");
    expect((await repo.git("status", "--porcelain")).trim()).toBe("");
    // The transcript recorded every request and response, appended as JSONL.
    const transcripts = await readdir(path.join(home, "transcripts"));
    expect(transcripts).toHaveLength(1);
    const lines = (await readFile(path.join(home, "transcripts", transcripts[0]!), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines[0]!.type).toBe("meta");
    expect(lines.filter((l) => l.type === "request")).toHaveLength(model.requests.length);
    expect(lines.filter((l) => l.type === "response")).toHaveLength(model.requests.length);
    expect(lines.at(-1)!.type).toBe("end");
    // The model key never reaches the transcript or the model.
    expect(JSON.stringify(lines)).not.toContain(model.apiKey);
  });

  it("run --local --replay of a recorded transcript reproduces the run without a model, and fails clearly past its end", async () => {
    const model = await startFakeAnthropic(fixTemperatureScript(), { minCacheableTokens: 0 });
    cleanups.push(() => model.close());
    const home = await tempDir("tackle-replay-home-");
    const first = await localDemoRepo(tempDir);
    const env = contractEnv(home, { TACKLE_HOME: home, ANTHROPIC_API_KEY: model.apiKey, ANTHROPIC_BASE_URL: model.url });
    expect((await runCli(["run", "--local", first.dir, "--task", "fix the offset"], env)).code).toBe(0);
    const [recorded] = await readdir(path.join(home, "transcripts"));
    const transcript = path.join(home, "transcripts", recorded!);
    await model.close();

    const second = await localDemoRepo(tempDir);
    const replayEnv = contractEnv(home, { TACKLE_HOME: home });
    const replay = await runCli(["run", "--local", second.dir, "--task", "fix the offset", "--replay", transcript], replayEnv);
    expect(replay.code).toBe(0);
    const branch = (await second.git("branch", "--list", "tackle/local-*")).trim().replace(/^[*+ ]+/, "");
    expect(await second.git("show", `${branch}:src/temperature.js`)).toContain("/ 5 + 32;");

    // A transcript that ends too early: the run stops with a clear error naming the file.
    const short = path.join(home, "short.jsonl");
    const firstLine = (await readFile(transcript, "utf8")).split("\n").find((l) => l.includes('"type":"response"'))!;
    await writeFile(short, `${firstLine}\n`);
    const third = await localDemoRepo(tempDir);
    const cut = await runCli(["run", "--local", third.dir, "--task", "fix the offset", "--replay", short], replayEnv);
    expect(cut.code).toBe(1);
    expect(cut.stdout + cut.stderr).toMatch(/short\.jsonl has 1 responses?; the run asked for response 2/);
  });

  it("tackle server: health, then a signed issues.assigned webhook becomes a draft PR", async () => {
    const gh = await startFakeGitHub();
    cleanups.push(() => gh.close());
    await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
    gh.setPermission(OWNER, REPO, "alice", "admin");
    const issue = gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });
    const model = await startFakeAnthropic(fixTemperatureScript(), { minCacheableTokens: 0 });
    cleanups.push(() => model.close());
    const home = await tempDir("tackle-server-home-");
    const server = spawn(process.execPath, [CLI, "server"], {
      env: contractEnv(home, { ...gh.appEnv(), ...model.env(), PORT: "0", TACKLE_HOME: home, LOG_LEVEL: "warn" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    cleanups.push(() => stop(server));
    const port = await listeningPort(server);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

    const response = await sendAssigned(binWebhookUrl(port), gh, issue.number);
    expect(response.status).toBe(200);
    await gh.waitFor(() => gh.comments(OWNER, REPO, issue.number).some((c) => c.body.includes("Tackle finished")), 90_000);
    const pulls = gh.pulls(OWNER, REPO);
    expect(pulls).toHaveLength(1);
    const pull = await gh.pullJson(OWNER, REPO, pulls[0]!.number);
    expect(pull?.draft).toBe(true);
    expect(pull?.body).toContain(`Fixes #${issue.number}`);
    expect(await gh.readFile(OWNER, REPO, `tackle/issue-${issue.number}`, "src/temperature.js")).toContain("/ 5 + 32;");

    // A bad signature is refused by the middleware and starts nothing.
    const forged = await sendAssigned(binWebhookUrl(port), gh, issue.number, { secret: "not-the-secret" });
    expect(forged.status).toBeGreaterThanOrEqual(400);
    expect(forged.status).toBeLessThan(500);
  });
});

function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}\n${err}`)), 30_000);
    child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on port (\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}\n${err}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}
