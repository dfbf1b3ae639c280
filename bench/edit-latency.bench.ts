/**
 * What one Edit costs the agent on a warm checkout of a 10,000-file repository, with max_diff_lines
 * set so the diff-size check runs: the Edit tool called through the registry (schema, policy engine,
 * the edit, redaction), as the loop calls it. Beside it: the git measurement the check used to run on
 * every Edit (`diffStat`: three sandboxed git commands), which now runs once and again only after a
 * command; an Edit right after a Bash call, which pays that measurement; and the floor, a plain
 * read and write of the same file in this process (what any editor tool must do at least).
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { coreTools, createPolicyEngine, createToolRegistry, denyingApprovalHandler } from "../src/agent/tools/index.js";
import { createRepoCache, detectSandbox, type SandboxMode } from "../src/workspace/index.js";
import { startFakeGitHub } from "../test/fakes/index.js";
import { contextFor } from "./agent-helpers.js";
import { ms, percentile, printTable } from "./table.js";
import { generateRepo, removeDir, tempDir } from "./workspace-helpers.js";

const FILES = 10_000;
const EDITS = 60;
const AFTER_BASH = 10;
const GOAL_P50_MS = 50;
const FILE = "src/mod-01/file-00001.ts";

export async function run(): Promise<void> {
  const support = await detectSandbox();
  const mode: SandboxMode = support.available ? "bwrap" : "off";
  const base = tempDir("edit-latency");
  const fake = await startFakeGitHub();
  try {
    const repo = await generateRepo(fake, { owner: "acme", name: "big", files: FILES, commits: 30 });
    const cache = createRepoCache({ home: `${base}/home` });
    const workspace = await cache.prepare({
      jobId: "edit-latency",
      remoteUrl: repo.cloneUrl,
      repoKey: "ghe.bench/acme/big",
      token: fake.mintToken({ owner: "acme" }),
      branch: "tackle/issue-1",
      startFrom: "base",
      sandbox: mode,
    });
    const abort = new AbortController();
    const ctx = contextFor(workspace, abort.signal);
    const registry = createToolRegistry(coreTools(), {
      policy: createPolicyEngine({ maxDiffLines: 100_000 }),
      approval: denyingApprovalHandler,
    });
    let counter = 0;
    const call = async (name: string, input: unknown): Promise<number> => {
      const started = performance.now();
      const [result] = await registry.runCalls([{ id: `c${counter}`, name, input }], ctx);
      const elapsed = performance.now() - started;
      if (result?.is_error) throw new Error(`${name} failed: ${result.content}`);
      return elapsed;
    };
    const edit = () => {
      counter += 1;
      return call("Edit", { file_path: FILE, old_string: `// edit ${counter - 1}\n`, new_string: `// edit ${counter}\n` });
    };

    const samples = { edit: [] as number[], afterBash: [] as number[], diffStat: [] as number[], floor: [] as number[] };
    try {
      await call("Bash", { command: `echo '// edit 0' >> ${FILE}` });
      await edit(); // the first Edit after a command measures; the warm-up
      // The floor runs right after each Edit, so both see the same machine load.
      const absolute = path.join(workspace.fs.root, FILE);
      for (let i = 0; i < EDITS; i += 1) {
        samples.edit.push(await edit());
        const started = performance.now();
        const text = await readFile(absolute, "utf8");
        await writeFile(absolute, text.replace(`// edit ${counter}\n`, `// edit ${counter}\n`));
        samples.floor.push(performance.now() - started);
      }
      for (let i = 0; i < AFTER_BASH; i += 1) {
        await call("Bash", { command: "true" });
        samples.afterBash.push(await edit());
        const started = performance.now();
        await workspace.git.diffStat(workspace.baseBranch);
        samples.diffStat.push(performance.now() - started);
      }
    } finally {
      await workspace.dispose();
    }

    const row = (label: string, values: number[]) => [label, ms(percentile(values, 50)), ms(percentile(values, 95))];
    console.log(`repository: ${FILES} files; sandbox: ${mode}; max_diff_lines set; ${EDITS} Edits in a row, ${AFTER_BASH} after a Bash call\n`);
    printTable(
      ["step", "p50", "p95"],
      [
        row("Edit through the registry (diff counted on the host)", samples.edit),
        row("Edit right after a Bash call (diff measured with git again)", samples.afterBash),
        row("git diffStat in the sandbox (what every Edit ran before)", samples.diffStat),
        row("floor: read and write the same file in this process", samples.floor),
      ],
    );
    const p50 = percentile(samples.edit, 50);
    console.log("");
    printTable(
      ["goal", "measured", "status"],
      [[`Edit p50 ≤ ${GOAL_P50_MS} ms`, `${ms(p50)} (p95 ${ms(percentile(samples.edit, 95))})`, p50 <= GOAL_P50_MS ? "met" : "not met"]],
    );
  } finally {
    await fake.close();
    removeDir(base);
  }
}
