// `npm run demo`: the main job end to end with no API key, no Redis and no network.
// Copies examples/demo-repo into a fresh git repository under $TACKLE_HOME/demo and runs
// `tackle run --local` on it, with the model replaced by a HAND-WRITTEN scripted session.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const home = path.resolve(process.env.TACKLE_HOME ?? path.join(os.homedir(), ".tackle"));
const repo = path.join(home, "demo", `demo-repo-${Date.now().toString(36)}`);

mkdirSync(path.dirname(repo), { recursive: true });
cpSync(path.join(root, "examples", "demo-repo"), repo, { recursive: true });
const gitEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GIT_"))),
  GIT_AUTHOR_NAME: "Demo",
  GIT_AUTHOR_EMAIL: "demo@example.com",
  GIT_COMMITTER_NAME: "Demo",
  GIT_COMMITTER_EMAIL: "demo@example.com",
};
for (const args of [
  ["init", "-q", "-b", "main"],
  ["add", "-A"],
  ["commit", "-q", "-m", "Initial commit"],
]) {
  const result = spawnSync("git", args, { cwd: repo, env: gitEnv, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
console.log(`demo repository: ${repo}`);
console.log("model: a hand-written scripted session (examples/demo-session.jsonl), not a live model\n");

const run = spawnSync(
  process.execPath,
  [
    path.join(root, "dist", "cli.js"),
    "run",
    "--local",
    repo,
    "--task-file",
    path.join(root, "examples", "demo-task.md"),
    "--replay",
    path.join(root, "examples", "demo-session.jsonl"),
  ],
  { stdio: "inherit", env: { ...process.env, TACKLE_HOME: home } },
);
if (run.status === 0) {
  console.log("\nThe fix, as the patch file holds it:\n");
  spawnSync("git", ["--no-pager", "log", "-p", "-1", "--format=%h %s", "--branches=tackle/local-*"], {
    cwd: repo,
    env: gitEnv,
    stdio: "inherit",
  });
}
process.exit(run.status ?? 1);
