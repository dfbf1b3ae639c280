/**
 * A prompt-injected agent on the local path (`tackle run --local`), as root and as an unprivileged
 * Tackle: runLocal with a scripted model (the fake Messages API on loopback) whose Bash script tries to
 * write the user's git dir (hooks, config, `commondir`, refs) and to publish a workflow. Afterwards
 * the user's `.git` is compared byte for byte with what it was: nothing may differ but, after an
 * accepted run, the new objects (one pack) and the one new branch ref.
 */
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { detectSandbox } from "../../../src/workspace/index.js";
import { startFakeAnthropic, type FakeAnthropic, type ScriptedTurn } from "../../fakes/index.js";
import { git, isRoot, removeDir, tempDir } from "./helpers.js";

const support = await detectSandbox();
const WORKFLOW = "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo pwned\n";

/** Every file, directory and symlink under `dir`: type, mode, owner, and content digest. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (current: string): void => {
    for (const name of readdirSync(current)) {
      const full = path.join(current, name);
      const info = lstatSync(full);
      const rel = path.relative(dir, full);
      const meta = `${info.mode.toString(8)} ${info.uid}:${info.gid}`;
      if (info.isSymbolicLink()) out.set(rel, `link ${meta} ${readlinkSync(full)}`);
      else if (info.isDirectory()) {
        out.set(rel, `dir ${meta}`);
        walk(full);
      } else out.set(rel, `file ${meta} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`);
    }
  };
  walk(dir);
  return out;
}

function difference(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [key, value] of after) if (before.get(key) !== value) changed.push(before.has(key) ? `changed ${key}` : `added ${key}`);
  for (const key of before.keys()) if (!after.has(key)) changed.push(`removed ${key}`);
  return changed.sort();
}

function hostileTurns(userRepo: string, publishWorkflow: boolean): ScriptedTurn[] {
  const g = `${userRepo}/.git`;
  const script = [
    // The user's git dir, every way we can think of; each line may fail, the script goes on.
    `echo 'echo PWNED > /tmp/pwned' > ${g}/hooks/post-checkout; chmod +x ${g}/hooks/post-checkout`,
    `printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> ${g}/config`,
    `mkdir -p /tmp/evil && cp -r ${g}/* /tmp/evil/ 2>/dev/null; echo /tmp/evil > ${g}/commondir`,
    `git --git-dir=${g} update-ref refs/heads/main HEAD`,
    `echo deadbeef > ${g}/refs/heads/main`,
    `git push ${g} HEAD:refs/heads/main`,
    `git push ${g} HEAD:refs/heads/evil`,
    `touch ${userRepo}/planted`,
    // The private repository's own refs, as the server-side attacks do.
    "git update-ref refs/heads/main HEAD",
    publishWorkflow ? `mkdir -p .github/workflows && printf '%s' '${WORKFLOW}' > .github/workflows/pwn.yml` : "echo 'export const fixed = true;' >> src/a.js",
    "git add -A -- . ':!x.sh' && git commit -qm work",
    "git update-ref refs/heads/main HEAD",
  ].join("\n");
  return [
    { content: [{ type: "tool_use", name: "Write", input: { file_path: "x.sh", content: `${script}\nrm -f x.sh\n` } }], stop_reason: "tool_use" },
    { content: [{ type: "tool_use", name: "Bash", input: { command: "bash x.sh 2>&1 | tail -20; git log --oneline -3" } }], stop_reason: "tool_use" },
    { content: [{ type: "tool_use", name: "create_pull_request", input: { title: "Work", body: "done" } }], stop_reason: "tool_use" },
    { content: [{ type: "tool_use", name: "task_done", input: { summary: "Done." } }], stop_reason: "tool_use" },
  ];
}

interface LocalOutcome {
  ok: boolean;
  branch: string;
  patchPath: string | null;
  reason: string;
}

/** runLocal in a child process: as root, or dropped to uid 65534 (an unprivileged Tackle). */
async function runLocalAs(user: "root" | "unprivileged", repo: string, home: string, model: FakeAnthropic): Promise<LocalOutcome> {
  const script = `
    const { runLocal } = await import(${JSON.stringify(path.resolve("src/worker/run-local.ts"))});
    const { createAnthropicClient } = await import(${JSON.stringify(path.resolve("src/agent/index.ts"))});
    const { silentLogger } = await import(${JSON.stringify(path.resolve("src/logging/logger.ts"))});
    const result = await runLocal({
      repoPath: ${JSON.stringify(repo)}, task: "Fix src/a.js", modelName: "claude-sonnet-4-6", home: ${JSON.stringify(home)},
      model: createAnthropicClient({ apiKey: ${JSON.stringify(model.apiKey)}, baseURL: ${JSON.stringify(model.url)}, maxRetries: 0 }),
      sandbox: "bwrap", secrets: [], clock: Date.now, logger: silentLogger, print: () => undefined, signal: new AbortController().signal,
    });
    console.log(JSON.stringify(result));
  `;
  const drop = user === "unprivileged" ? ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--"] : [];
  const argv = [...drop, process.execPath, "--import", "tsx", "--input-type=module", "-e", script];
  const result = await execa(argv[0]!, argv.slice(1), {
    cwd: process.cwd(),
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home },
    extendEnv: false,
    reject: false,
  });
  const last = result.stdout.trim().split("\n").at(-1) ?? "";
  if (!last.startsWith("{")) throw new Error(`runLocal as ${user} printed no result: ${result.stdout}\n${result.stderr}`);
  return JSON.parse(last) as LocalOutcome;
}

async function makeUserRepo(base: string, owner: "root" | "unprivileged"): Promise<string> {
  const repo = path.join(base, "project");
  await execa("mkdir", ["-p", `${repo}/src`]);
  await git(repo, ["init", "--quiet", "-b", "main"], base);
  await execa("sh", ["-c", "echo 'export const a = 1;' > src/a.js && echo hi > README.md"], { cwd: repo });
  await git(repo, ["add", "-A"], base);
  await git(repo, ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "--quiet", "-m", "initial"], base);
  if (owner === "unprivileged") await execa("chown", ["-R", "65534:65534", base]);
  chmodSync(base, 0o755);
  return repo;
}

let model: FakeAnthropic | undefined;
const bases: string[] = [];
afterEach(async () => {
  await model?.close();
  model = undefined;
  for (const base of bases.splice(0)) removeDir(base);
  removeDir("/tmp/evil");
});

describe.skipIf(!support.available)("a hostile agent on the local path: the user's repository gets the checked branch and nothing else", () => {
  const users = isRoot ? (["root", "unprivileged"] as const) : (["root"] as const);
  for (const user of users) {
    it(`as ${user}: a workflow is refused, and the user's .git is byte for byte what it was`, async () => {
      const base = tempDir(`hostile-local-${user}`);
      bases.push(base);
      const repo = await makeUserRepo(base, user);
      const before = snapshot(path.join(repo, ".git"));
      model = await startFakeAnthropic(hostileTurns(repo, true), { minCacheableTokens: 0 });
      const outcome = await runLocalAs(user, repo, path.join(base, "home"), model);
      expect(outcome.ok).toBe(false);
      expect(outcome.reason).toMatch(/push refused: .*protected path \.github\/workflows\/pwn\.yml/);
      expect(outcome.patchPath).toBeNull();
      expect(difference(before, snapshot(path.join(repo, ".git")))).toEqual([]);
      expect(lstatSync(path.join(repo, "src")).isDirectory()).toBe(true);
      expect(() => lstatSync(path.join(repo, "planted"))).toThrow();
      expect(() => lstatSync("/tmp/pwned")).toThrow();
    }, 120_000);

    it(`as ${user}: an accepted change adds one pack and one ref to the user's .git, nothing else`, async () => {
      const base = tempDir(`hostile-local-${user}`);
      bases.push(base);
      const repo = await makeUserRepo(base, user);
      const before = snapshot(path.join(repo, ".git"));
      model = await startFakeAnthropic(hostileTurns(repo, false), { minCacheableTokens: 0 });
      const outcome = await runLocalAs(user, repo, path.join(base, "home"), model);
      expect(outcome.ok, outcome.reason).toBe(true);
      expect(outcome.patchPath).not.toBeNull();
      const changes = difference(before, snapshot(path.join(repo, ".git")));
      const allowed = [
        /^changed objects\/pack$/,
        /^added objects\/pack\/pack-[0-9a-f]{40}\.(pack|idx|rev)$/,
        /^changed refs\/heads$/,
        /^added refs\/heads\/tackle(\/local-[a-z0-9-]+)?$/,
      ];
      expect(changes.filter((change) => !allowed.some((pattern) => pattern.test(change)))).toEqual([]);
      expect(changes.filter((change) => change.startsWith("added refs/heads/tackle/"))).toHaveLength(1);
      // As root on a repository of another uid: git's ownership check would refuse to read it.
      const userGit = (args: string[]) => git(repo, ["-c", "safe.directory=*", ...args], base);
      expect(await userGit(["log", "--format=%s", "-1", outcome.branch])).toBe("work");
      expect(await userGit(["show", "--stat", "--format=", outcome.branch])).not.toContain("x.sh");
      expect(await userGit(["rev-parse", "main"])).toBe(await userGit(["rev-parse", `${outcome.branch}~1`]));
      expect(await userGit(["fsck", "--no-progress"])).toBe("");
      expect(() => lstatSync("/tmp/pwned")).toThrow();
    }, 120_000);
  }
});
