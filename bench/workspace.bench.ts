/**
 * Workspace preparation: a job's checkout from a warm mirror against `git clone --depth 1` and a full
 * clone of the same repository, over the fake GitHub's smart HTTP on loopback, plus the cold first job
 * (empty TACKLE_HOME) and a warm job after one new commit upstream. Bytes are what the fake's
 * git-http-backend sent. A job's times include its dispose, so they are what a job really costs; the
 * clones' times do not include removing them. The steps run round-robin, so load from anything else
 * on the machine falls on all of them alike.
 */
import path from "node:path";
import { execa } from "execa";
import { createRepoCache, detectSandbox, type PrepareOptions, type SandboxMode } from "../src/workspace/index.js";
import { cleanGitEnv, startFakeGitHub } from "../test/fakes/index.js";
import { ms, printTable } from "./table.js";
import { formatBytes, generateRepo, median, removeDir, sampleAll, tempDir, type Sample, type Step } from "./workspace-helpers.js";

const FILES = 10_000;
const COMMITS = 300;
const RUNS = 5;
const GOAL_SPEEDUP = 2.5;
const GOAL_BYTES_SHARE = 0.02;

const SHALLOW = "git clone --depth 1 (baseline)";
const SHALLOW_FILE = "git clone --depth 1 of a file:// URL (the server's speed check)";
const FULL = "git clone (full)";
const COLD = "cold first job (empty TACKLE_HOME)";
const WARM = "warm job (mirror up to date)";
const WARM_NEW = "warm job after 1 new commit upstream";
const PROFILE_RUNS = 2;
const WARM_FRESH = `warm job, checkout not recycled (profile, ${PROFILE_RUNS} runs)`;

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
        `sandbox: ${mode}${support.available ? "" : ` (${support.detail}; checkouts are not recycled without it)`}; ` +
        `median of ${RUNS} runs, round-robin\n`,
    );

    const header = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
    const gitEnv = cleanGitEnv(base);
    const cloneDir = (run: number) => path.join(base, `clone-${run}`);
    const clone = (extra: string[]) => async (run: number) => {
      await execa("git", ["-c", `http.extraHeader=${header}`, "clone", "--quiet", ...extra, repo.cloneUrl, cloneDir(run)], { env: gitEnv, extendEnv: false });
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
    const job = (home: string, recycledPerRepo?: number) => async (run: number) => {
      const cache = createRepoCache({ home, ...(recycledPerRepo === undefined ? {} : { recycledPerRepo }) });
      const workspace = await cache.prepare(options(`job-${run}`));
      await workspace.dispose();
    };
    const coldHome = (run: number) => path.join(base, `cold-${run}`);
    const warmHome = path.join(base, "warm");
    const freshHome = path.join(base, "warm-no-recycling");
    let counter = 0;

    // Warm-up: each warm home gets its mirror (and, where recycling is on, a parked checkout).
    await job(warmHome)(-1);
    await job(freshHome, 0)(-1);
    // The plain tool on the same repository without the fake's HTTP: if the baseline were much slower
    // than this, the ratio would measure the fake server, not Tackle.
    const cloneFile = async (run: number) => {
      await execa("git", ["clone", "--quiet", "--depth", "1", `file://${fake.gitDir("acme", "big")}`, cloneDir(run)], { env: gitEnv, extendEnv: false });
    };
    const steps: Step[] = [
      { label: SHALLOW, run: clone(["--depth", "1"]), after: async (run) => removeDir(cloneDir(run)) },
      { label: SHALLOW_FILE, run: cloneFile, after: async (run) => removeDir(cloneDir(run)) },
      { label: FULL, run: clone([]), after: async (run) => removeDir(cloneDir(run)) },
      { label: COLD, run: (run) => job(coldHome(run))(run), after: async (run) => removeDir(coldHome(run)) },
      { label: WARM, run: job(warmHome) },
      {
        label: WARM_NEW,
        before: async () => {
          counter += 1;
          await fake.commitFiles(
            "acme",
            "big",
            "main",
            { [`src/mod-07/new-${counter}.ts`]: `export const added = ${counter};\n` },
            { message: `New ${counter}` },
          );
        },
        run: job(warmHome),
      },
      // Where the time goes without recycling: `clone --shared` from the mirror plus writing every file.
      { label: WARM_FRESH, run: job(freshHome, 0), runs: PROFILE_RUNS },
    ];
    const samples = await sampleAll(fake, RUNS, steps);

    const of = (label: string): Sample[] => samples.get(label) ?? [];
    const medianMs = (label: string) => median(of(label).map((s) => s.ms));
    const medianBytes = (label: string) => median(of(label).map((s) => s.bytes));
    const baseline = { ms: medianMs(SHALLOW), bytes: medianBytes(SHALLOW) };
    printTable(
      ["step", "time (median)", "vs shallow clone", "bytes sent", "% of shallow bytes"],
      steps.map(({ label }) => [
        label,
        ms(medianMs(label)),
        `${(medianMs(label) / baseline.ms).toFixed(2)}×`,
        formatBytes(medianBytes(label)),
        `${((medianBytes(label) / baseline.bytes) * 100).toFixed(2)} %`,
      ]),
    );

    const speedup = baseline.ms / medianMs(WARM);
    const share = Math.max(medianBytes(WARM), medianBytes(WARM_NEW)) / baseline.bytes;
    console.log("");
    printTable(
      ["goal", "measured", "status"],
      [
        [`warm preparation ≥ ${GOAL_SPEEDUP}× faster than the shallow clone`, `${speedup.toFixed(2)}×`, speedup >= GOAL_SPEEDUP ? "met" : "not met"],
        [
          `a warm job transfers ≤ ${GOAL_BYTES_SHARE * 100} % of the shallow clone's bytes`,
          `${(share * 100).toFixed(2)} %`,
          share <= GOAL_BYTES_SHARE ? "met" : "not met",
        ],
      ],
    );
  } finally {
    await fake.close();
    removeDir(base);
  }
}
