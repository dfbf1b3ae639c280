/**
 * `tackle run --local` with the Worktree tool, driven by the scripted model over the fake Messages API:
 * the agent makes a worktree, works and commits there, comes back and commits on the run's branch.
 * Only that branch reaches the user's repository; the summary names the other one as dropped. The run
 * is a child process, as root and (when the test is root) as an unprivileged Tackle, uid 65534.
 */
import { chmodSync, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import type { LocalRunResult } from "../../../src/worker/run-local.js";
import { localSlug } from "../../../src/worker/run-local.js";
import { detectSandbox } from "../../../src/workspace/index.js";
import { startFakeAnthropic, type FakeAnthropic, type ScriptedTurn } from "../../fakes/index.js";
import { toolResultsIn } from "../agent/helpers.js";
import { git, isRoot, removeDir, tempDir, makeUserRepo } from "../workspace/helpers.js";

const support = await detectSandbox();
const TASK = "Try the parser rewrite aside";
const NOW = Date.UTC(2025, 0, 2, 3, 4, 5);

const use = (name: string, input: Record<string, unknown>): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], stop_reason: "tool_use" });

/** runLocal in a child process, as `user`: its result and the lines it printed. */
async function runLocalAs(
  user: "root" | "unprivileged",
  repo: string,
  home: string,
  fake: FakeAnthropic,
): Promise<{ result: LocalRunResult; printed: string[] }> {
  const script = `
    const { runLocal } = await import(${JSON.stringify(path.resolve("src/worker/run-local.ts"))});
    const { createAnthropicClient } = await import(${JSON.stringify(path.resolve("src/agent/index.ts"))});
    const { silentLogger } = await import(${JSON.stringify(path.resolve("src/logging/logger.ts"))});
    const printed = [];
    const result = await runLocal({
      repoPath: ${JSON.stringify(repo)}, task: ${JSON.stringify(TASK)}, modelName: "claude-sonnet-4-6", home: ${JSON.stringify(home)},
      model: createAnthropicClient({ apiKey: ${JSON.stringify(fake.apiKey)}, baseURL: ${JSON.stringify(fake.url)}, maxRetries: 0 }),
      sandbox: ${JSON.stringify(support.available ? "bwrap" : "off")}, secrets: [], clock: () => ${NOW}, logger: silentLogger,
      print: (line) => printed.push(line), signal: new AbortController().signal,
    });
    console.log(JSON.stringify({ result, printed }));
  `;
  const drop = user === "unprivileged" ? ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--"] : [];
  const argv = [...drop, process.execPath, "--import", "tsx", "--input-type=module", "-e", script];
  const child = await execa(argv[0]!, argv.slice(1), { env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home }, extendEnv: false, reject: false });
  const last = child.stdout.trim().split("\n").at(-1) ?? "";
  if (!last.startsWith("{")) throw new Error(`runLocal as ${user} printed no result: ${child.stdout}\n${child.stderr}`);
  return JSON.parse(last) as { result: LocalRunResult; printed: string[] };
}

let model: FakeAnthropic | undefined;
let base: string | undefined;
afterEach(async () => {
  await model?.close();
  if (base) removeDir(base);
});

describe("a local run with worktrees", () => {
  for (const user of isRoot ? (["root", "unprivileged"] as const) : (["root"] as const)) {
    it(`as ${user}: the agent works in a worktree and back; only tackle/local-* reaches the user's repository, the other branch is named as dropped`, async () => {
      base = tempDir("local-worktrees");
      const repo = path.join(base, "project");
      await makeUserRepo(repo, base);
      if (user === "unprivileged") await execa("chown", ["-R", "65534:65534", base]);
      chmodSync(base, 0o755);
      const home = path.join(base, "home");
      const branch = `tackle/local-${localSlug(TASK, NOW)}`;
      const mainRoot = path.join(home, "local", branch.replace("/", "-"));
      const featRoot = `${mainRoot}.worktrees/feat`;

      model = await startFakeAnthropic(
        [
          use("Worktree", { action: "create", name: "feat" }),
          use("Worktree", { action: "enter", name: "feat" }),
          use("Write", { file_path: "parser.txt", content: "the rewrite\n" }),
          use("git_commit", { message: "Rewrite the parser aside" }),
          use("Bash", { command: "pwd; git rev-parse --abbrev-ref HEAD" }),
          use("Worktree", { action: "list" }),
          use("Worktree", { action: "leave" }),
          use("Bash", { command: "pwd; git rev-parse --abbrev-ref HEAD; ls" }),
          use("Write", { file_path: "notes.txt", content: "kept the old parser\n" }),
          use("git_commit", { message: "Note why the old parser stays" }),
          use("task_done", { summary: "Tried the rewrite in a worktree; kept a note." }),
        ],
        { minCacheableTokens: 0 },
      );
      const { result, printed } = await runLocalAs(user, repo, home, model);
      expect(result, JSON.stringify(printed)).toMatchObject({ ok: true, branch, commits: 1 });

      // Offered last, after every other tool of the run, so the others' cache prefix is what it was.
      const tools = (model.requests[0]?.body.tools ?? []) as Array<{ name: string }>;
      expect(tools.at(-1)?.name).toBe("Worktree");
      const results = model.requests.slice(1).map((_, index) => toolResultsIn(model!, index + 1)[0]);
      for (const [index, toolResult] of results.entries()) expect(toolResult?.is_error, `turn ${index}: ${toolResult?.content}`).toBeFalsy();
      expect(results[0]?.content).toContain(`at ${featRoot} on the new branch ${branch}-feat`);
      expect(results[3]?.content).toContain(`${branch}-feat`);
      // The shell followed the root into the worktree, and back out of it.
      expect(results[4]?.content).toContain(`${featRoot}\n${branch}-feat\n`);
      expect(results[5]?.content).toMatch(new RegExp(`^\\* feat {2}${branch}-feat {2}[0-9a-f]{7} Rewrite the parser aside {2}${featRoot}$`, "m"));
      expect(results[7]?.content).toContain(`${mainRoot}\n${branch}\nREADME.md\n`);
      expect(results[7]?.content).not.toContain("parser.txt");

      // As root on a repository of another uid: git's ownership check would refuse to read it.
      const userGit = (args: string[]) => git(repo, ["-c", "safe.directory=*", ...args], base);
      const branches = (await userGit(["for-each-ref", "--format=%(refname:short)", "refs/heads"])).split("\n").sort();
      expect(branches).toEqual(["main", branch]);
      expect(await userGit(["log", "--format=%s", branch])).toBe("Note why the old parser stays\ninitial");
      expect(readFileSync(result.patchPath!, "utf8")).not.toContain("parser.txt");
      expect(printed).toContain(`Dropped with their worktrees (only ${branch} is handed back): ${branch}-feat`);
      // The terminal's progress is read from the tracking state, not from a rendered comment.
      expect(printed.find((line) => line.startsWith("  → "))).toBe("  → reading the issue");
      // The worktree, its sandbox and the private repository went with the run.
      expect(existsSync(featRoot)).toBe(false);
      expect(readdirSync(path.join(home, "local"))).toEqual([]);
    }, 120_000);
  }
});
