// Broken (red team of #20, thirteenth pass, local runs / what outlives a job in TACKLE_SANDBOX=off): as
// root with TACKLE_SANDBOX=off, TACKLE_HOME must be reachable by the commands' uid (the private
// repository is under it), and runLocal (src/worker/run-local.ts › runLocal, the end of the run) writes
// every run's patch to `${home}/patches/<slug>.patch` with `mkdir`/`writeFile` defaults: a directory
// 0755 and a file 0644. A later local run on another repository (its agent as uid 65534, or a
// detached process left behind by any earlier job) read the first run's patch, the user's private
// change, with `cat ../../patches/*` from its working directory. Measured: a command of the second
// run prints the first run's patch.
// What should hold: as transcripts and job records are (off-mode-reads-other-jobs-transcripts), a
// run's patch is the operator's: its directory 0700 and the file 0600, so no job's command reads it.
// Fixed: runLocal writes the patch in a 0700 directory as a 0600 file (run-local.ts).
import { chmodSync, mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/agent/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { runLocal } from "../../src/worker/run-local.js";
import { openLocalWorkspace, type Workspace } from "../../src/workspace/index.js";
import { startFakeAnthropic, type FakeAnthropic } from "../fakes/index.js";
import { git, isRoot, removeDir } from "../integration/workspace/helpers.js";

const PRIVATE = "PRIVATE-CHANGE-OF-THE-FIRST-RUN";

let model: FakeAnthropic | undefined;
let base: string | undefined;
let second: Workspace | undefined;
afterEach(async () => {
  await second?.dispose();
  await model?.close();
  if (base) removeDir(base);
});

async function makeRepo(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  await git(dir, ["init", "--quiet", "-b", "main"], dir);
  writeFileSync(path.join(dir, "README.md"), "hello\n");
  await git(dir, ["add", "-A"], dir);
  await git(dir, ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "--quiet", "-m", "initial"], dir);
}

it.runIf(isRoot)("TACKLE_SANDBOX=off as root: a local run's command does not read another run's patch", async () => {
  // Off mode as root: TACKLE_HOME outside /root, reachable by the commands' uid.
  base = mkdtempSync(path.join(tmpdir(), "tackle-off-patches-"));
  chmodSync(base, 0o755);
  const home = path.join(base, "home");
  mkdirSync(home, { mode: 0o755 });
  const first = path.join(base, "first");
  const other = path.join(base, "other");
  await makeRepo(first);
  await makeRepo(other);

  model = await startFakeAnthropic(
    [
      { content: [{ type: "tool_use", name: "Write", input: { file_path: "secret.txt", content: `${PRIVATE}\n` } }], stop_reason: "tool_use" },
      { content: [{ type: "tool_use", name: "task_done", input: { summary: "Done." } }], stop_reason: "tool_use" },
    ],
    { minCacheableTokens: 0 },
  );
  const result = await runLocal({
    repoPath: first,
    task: "Add the private change",
    model: createAnthropicClient({ apiKey: model.apiKey, baseURL: model.url, maxRetries: 0 }),
    modelName: "claude-sonnet-4-6",
    home,
    sandbox: "off",
    secrets: [],
    clock: Date.now,
    logger: silentLogger,
    print: () => undefined,
    signal: new AbortController().signal,
  });
  expect(result.patchPath).not.toBeNull();

  // The next run, on another repository: its agent's command.
  second = await openLocalWorkspace({ repoPath: other, branch: "tackle/local-next", home, sandbox: "off" });
  const read = await second.exec.run("id -u; cat ../../patches/*.patch 2>&1", { timeoutMs: 30_000 });
  expect(read.output.split("\n")[0]).not.toBe("0");
  expect(read.output).not.toContain(PRIVATE);
});
