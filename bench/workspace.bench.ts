/**
 * Workspace preparation: a job's checkout from a warm mirror against `git clone --depth 1` and a full
 * clone of the same repository, over the fake GitHub's smart HTTP on loopback, plus the cold first job
 * (empty TACKLE_HOME) and a warm job after one new commit upstream. Bytes are what the fake's
 * git-http-backend sent. A job's times include its dispose (the checkout is removed), so they are
 * what a job really costs; the clones' times do not include removing them.
 */
import path from "node:path";
import { execa } from "execa";
import { createRepoCache, detectSandbox, type PrepareOptions, type SandboxMode } from "../src/workspace/index.js";
import { cleanGitEnv, startFakeGitHub } from "../test/fakes/index.js";
import { ms, printTable } from "./table.js";
import { formatBytes, generateRepo, median, removeDir, sample, tempDir, type Sample } from "./workspace-helpers.js";

const FILES = 10_000;
const COMMITS = 300;
const RUNS = 5;
const GOAL_SPEEDUP = 2.5;
const GOAL_BYTES_SHARE = 0.02;

export async function run(): Promise<void> {
  const support = await detectSandbox();
  const mode: SandboxMode = support.available ? "bwrap" : "off";
  const base = tempDir("workspace");
  const fake = await startFakeGitHub();
  try {
    const generating = performance.now();
    const repo = await generateRepo(fake, { owner: "acme", name: "big", files: FILES, commits: COMMITS });
    const token = fake.mintToken({ owner: "acme" });
    console.log(
      `repository: ${repo.files} files, ${repo.commits} commits, generated in ${ms(performance.now() - generating)}; ` +
        `sandbox: ${mode}${support.available ? "" : ` (${support.detail})`}; median of ${RUNS} runs\n`,
    );

    const header = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
    const gitEnv = cleanGitEnv(base);
    const clone = (extra: string[]) => async (run: number) => {
      const target = path.join(base, `clone-${extra.length}-${run}`);
      await execa("git", ["-c", `http.extraHeader=${header}`, "clone", "--quiet", ...extra, repo.cloneUrl, target], { env: gitEnv, extendEnv: false });
    };
    const removeClones = async () => {
      for (let run = 0; run < RUNS; run++) for (const n of [0, 2]) removeDir(path.join(base, `clone-${n}-${run}`));
    };

    const options = (jobId: string): PrepareOptions => ({
      jobId,
      remoteUrl: repo.cloneUrl,
      repoKey: "ghe.bench/acme/big",
      token,
      branch: "tackle/issue-1",
      startFrom: "base",
      sandbox: mode,
    });
    const job = (home: string) => async (run: number) => {
      const workspace = await createRepoCache({ home }).prepare(options(`job-${run}`));
      await workspace.dispose();
    };

    const shallow = await sample(fake, RUNS, clone(["--depth", "1"]));
    await removeClones();
    const full = await sample(fake, RUNS, clone([]));
    await removeClones();

    const coldHome = (run: number) => path.join(base, `cold-${run}`);
    const cold = await sample(fake, RUNS, (run) => job(coldHome(run))(run), { after: async (run) => removeDir(coldHome(run)) });

    const warmHome = path.join(base, "warm");
    await job(warmHome)(-1);
    const warm = await sample(fake, RUNS, job(warmHome));
    let counter = 0;
    const newCommit = async () => {
      counter += 1;
      await fake.commitFiles("acme", "big", "main", { [`src/mod-07/new-${counter}.ts`]: `export const added = ${counter};\n` }, { message: `New ${counter}` });
    };
    const warmNew = await sample(fake, RUNS, job(warmHome), { before: newCommit });

    const baseline = { ms: median(shallow.map((s) => s.ms)), bytes: median(shallow.map((s) => s.bytes)) };
    const row = (label: string, samples: Sample[]) => {
      const time = median(samples.map((s) => s.ms));
      const bytes = median(samples.map((s) => s.bytes));
      return [label, ms(time), `${(time / baseline.ms).toFixed(2)}×`, formatBytes(bytes), `${((bytes / baseline.bytes) * 100).toFixed(2)} %`];
    };
    printTable(
      ["step", "time (median)", "vs shallow clone", "bytes sent", "% of shallow bytes"],
      [
        row("git clone --depth 1 (baseline)", shallow),
        row("git clone (full)", full),
        row("cold first job (empty TACKLE_HOME)", cold),
        row("warm job (mirror up to date)", warm),
        row("warm job after 1 new commit upstream", warmNew),
      ],
    );

    const warmMs = median(warm.map((s) => s.ms));
    const speedup = baseline.ms / warmMs;
    const worstWarmBytes = Math.max(median(warm.map((s) => s.bytes)), median(warmNew.map((s) => s.bytes)));
    const share = worstWarmBytes / baseline.bytes;
    console.log("");
    printTable(
      ["goal", "measured", "status"],
      [
        [`warm preparation ≥ ${GOAL_SPEEDUP}× faster than the shallow clone`, `${speedup.toFixed(2)}×`, speedup >= GOAL_SPEEDUP ? "met" : "not met"],
        [`a warm job transfers ≤ ${GOAL_BYTES_SHARE * 100} % of the shallow clone's bytes`, `${(share * 100).toFixed(2)} %`, share <= GOAL_BYTES_SHARE ? "met" : "not met"],
      ],
    );
  } finally {
    await fake.close();
    removeDir(base);
  }
}
