/**
 * What the host's publish check costs a push on a 10,000-file repository: the check Tackle makes now
 * (copy the commits out of the checkout into a host-only repository, measure base..sha there) against
 * the one it replaced (a numstat and an ls-files run in the sandbox against a base resolved inside the
 * checkout), and a plain `git push` of the same commit to the fake GitHub for scale. Each run first
 * commits a change to three files in the sandbox, so every check sees a new commit; the new check is
 * timed through `workspace.push` with a verdict that refuses, so it stops where the push would start.
 */
import { execa } from "execa";
import type { PublishedChange } from "../src/agent/ports.js";
import { createRepoCache, detectSandbox, type SandboxMode } from "../src/workspace/index.js";
import { cleanGitEnv, startFakeGitHub } from "../test/fakes/index.js";
import { ms, printTable } from "./table.js";
import { generateRepo, median, removeDir, tempDir } from "./workspace-helpers.js";

const FILES = 10_000;
const RUNS = 11;
const GOAL_MS = 50;

export async function run(): Promise<void> {
  const support = await detectSandbox();
  const mode: SandboxMode = support.available ? "bwrap" : "off";
  const base = tempDir("push-check");
  const fake = await startFakeGitHub();
  try {
    const repo = await generateRepo(fake, { owner: "acme", name: "big", files: FILES, commits: 30 });
    const token = fake.mintToken({ owner: "acme" });
    const cache = createRepoCache({ home: `${base}/home` });
    const workspace = await cache.prepare({
      jobId: "push-check",
      remoteUrl: repo.cloneUrl,
      repoKey: "ghe.bench/acme/big",
      token,
      branch: "tackle/issue-1",
      startFrom: "base",
      sandbox: mode,
    });
    const header = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
    const samples = { now: [] as number[], before: [] as number[], push: [] as number[] };
    let change: PublishedChange | undefined;
    try {
      for (let run = -1; run < RUNS; run += 1) {
        const edit = await workspace.exec.run(
          `for f in src/mod-01/file-00001.ts src/mod-02/file-00002.ts src/mod-03/file-00003.ts; do echo "// run ${run}" >> $f; done; git commit -qam "run ${run}"`,
          { timeoutMs: 60_000 },
        );
        if (edit.exitCode !== 0) throw new Error(`commit failed: ${edit.output}`);
        let started = performance.now();
        await workspace
          .push({
            token,
            verify: (seen) => {
              change = seen;
              return { action: "refuse", reason: "timing only" };
            },
          })
          .catch(() => undefined);
        const now = performance.now() - started;
        started = performance.now();
        await workspace.git.diffStat(workspace.baseBranch);
        const before = performance.now() - started;
        started = performance.now();
        await execa(
          "git",
          [
            "-c",
            `http.extraHeader=${header}`,
            "-c",
            "safe.directory=*",
            "-C",
            workspace.root,
            "push",
            "--quiet",
            "--force",
            repo.cloneUrl,
            `HEAD:refs/heads/plain-${run}`,
          ],
          {
            env: cleanGitEnv(base),
            extendEnv: false,
          },
        );
        const push = performance.now() - started;
        if (run < 0) continue; // warm-up
        samples.now.push(now);
        samples.before.push(before);
        samples.push.push(push);
      }
    } finally {
      await workspace.dispose();
    }
    if (change?.files.length !== 3) throw new Error(`the check saw ${change?.files.length ?? 0} files, expected 3`);
    const [now, before, push] = [median(samples.now), median(samples.before), median(samples.push)];
    console.log(`repository: ${FILES} files; sandbox: ${mode}; median of ${RUNS} runs; each run a new commit changing 3 files\n`);
    printTable(
      ["step (per push)", "time (median)"],
      [
        ["host check now: pack out of the checkout, index-pack, diff in the host's repository", ms(now)],
        ["check it replaced: numstat + ls-files in the sandbox (baseline)", ms(before)],
        ["plain git push of the same commit (for scale)", ms(push)],
      ],
    );
    const added = now - before;
    console.log("");
    printTable(["goal", "measured", "status"], [[`the stronger check adds ≤ ${GOAL_MS} ms to a push`, ms(added), added <= GOAL_MS ? "met" : "not met"]]);
  } finally {
    await fake.close();
    removeDir(base);
  }
}
