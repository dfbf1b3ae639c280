/**
 * Pieces of the workspace benchmark: a large generated repository written straight into the fake
 * GitHub's bare repository with `git fast-import` (seconds, where one commit per git call would take
 * minutes), the bytes the fake sent for git, and a timer that runs a step several times.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { cleanGitEnv, type FakeGitHub } from "../test/fakes/index.js";
import { seededRandom } from "./seeded-random.js";

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `tackle-bench-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

const WORDS = ["order", "invoice", "customer", "widget", "payment", "session", "report", "shipment", "account", "ticket", "cart", "price"];

/** A TypeScript-looking file of 20 to 60 lines, varied enough that packs do not shrink to nothing. */
function sourceFile(index: number, revision: number, random: () => number): string {
  const pick = (): string => WORDS[Math.floor(random() * WORDS.length)] ?? "item";
  const name = `${pick()}${index}`;
  const lines = [`// ${name}.ts, revision ${revision}`, `import { ${pick()}Of } from "../shared/${pick()}.js";`, ""];
  const functions = 3 + Math.floor(random() * 8);
  for (let f = 0; f < functions; f++) {
    const a = pick();
    const b = pick();
    const k = Math.floor(random() * 10_000);
    lines.push(`export function ${a}${f}${name}(${a}: number, ${b}: string): string {`);
    lines.push(`  const total = ${a} * ${k} + ${b}.length; // ${pick()} ${pick()}`);
    lines.push(`  return \`${b}:\${total}:${k.toString(36)}\`;`);
    lines.push("}", "");
  }
  return `${lines.join("\n")}\n`;
}

export interface GeneratedRepo {
  owner: string;
  name: string;
  cloneUrl: string;
  files: number;
  commits: number;
}

/**
 * Adds `owner/name` to the fake and fills it: one commit with `files` files in 100 directories, then
 * `commits` small commits (one to four files changed, now and then one added), then a repack with a
 * bitmap index, as a real server keeps its repositories.
 */
export async function generateRepo(
  fake: FakeGitHub,
  options: { owner: string; name: string; files: number; commits: number; seed?: number },
): Promise<GeneratedRepo> {
  const repo = await fake.addRepo({ owner: options.owner, name: options.name, files: { "README.md": `# ${options.name}\n` } });
  const random = seededRandom(options.seed ?? 42);
  const chunks: Buffer[] = [];
  const push = (text: string | Buffer): void => {
    chunks.push(typeof text === "string" ? Buffer.from(text) : text);
  };
  const data = (content: string): void => {
    const bytes = Buffer.from(content);
    push(`data ${bytes.length}\n`);
    push(bytes);
    push("\n");
  };
  const pathOf = (index: number): string => `src/mod-${String(index % 100).padStart(2, "0")}/file-${String(index).padStart(5, "0")}.ts`;
  let time = 1_700_000_000;
  const commit = (message: string, first: boolean): void => {
    push("commit refs/heads/main\n");
    push(`committer Bench <bench@example.com> ${time++} +0000\n`);
    data(message);
    if (first) push("from refs/heads/main^0\n");
  };

  commit(`Import ${options.files} files`, true);
  let count = options.files;
  for (let i = 0; i < count; i++) {
    push(`M 100644 inline ${pathOf(i)}\n`);
    data(sourceFile(i, 0, random));
  }
  for (let c = 1; c <= options.commits; c++) {
    commit(`Change ${c}`, false);
    const changed = 1 + Math.floor(random() * 4);
    for (let j = 0; j < changed; j++) {
      const index = Math.floor(random() * count);
      push(`M 100644 inline ${pathOf(index)}\n`);
      data(sourceFile(index, c, random));
    }
    if (c % 10 === 0) {
      push(`M 100644 inline ${pathOf(count)}\n`);
      data(sourceFile(count, c, random));
      count += 1;
    }
  }
  push("done\n");

  const env = cleanGitEnv(path.dirname(repo.bareRepoPath));
  const git = (args: string[], input?: Buffer) =>
    execa("git", ["--git-dir", repo.bareRepoPath, ...args], { env, extendEnv: false, ...(input ? { input } : {}) });
  await git(["fast-import", "--quiet", "--done"], Buffer.concat(chunks));
  await git(["repack", "-a", "-d", "-q", "--write-bitmap-index"]);
  await git(["gc", "--quiet", "--prune=now"]);
  return { owner: options.owner, name: options.name, cloneUrl: repo.cloneUrl, files: count + 1, commits: options.commits + 2 };
}

/** Bytes the fake sent in answer to git requests since its log was last cleared. */
export function gitBytesSent(fake: FakeGitHub): number {
  return fake.requests({ kind: "git" }).reduce((sum, entry) => sum + entry.bytesSent, 0);
}

export interface Sample {
  ms: number;
  bytes: number;
}

export interface Step {
  label: string;
  /** Untimed set-up before each run (e.g. push a commit upstream). */
  before?: (run: number) => Promise<void>;
  /** What is measured. */
  run: (run: number) => Promise<void>;
  /** Untimed clean-up after each run. */
  after?: (run: number) => Promise<void>;
  /** Fewer runs than the others, for a step that only explains the rest. @defaultValue all of them */
  runs?: number;
}

/**
 * Runs every step `runs` times, round-robin (run 0 of each step, then run 1 of each...), so load
 * from anything else on the machine falls on all of them alike. Each sample's time covers `run`
 * only; its bytes are what the fake sent for git meanwhile.
 */
export async function sampleAll(fake: FakeGitHub, runs: number, steps: readonly Step[]): Promise<Map<string, Sample[]>> {
  const samples = new Map<string, Sample[]>(steps.map((step) => [step.label, []]));
  for (let run = 0; run < runs; run++) {
    for (const step of steps) {
      if (step.runs !== undefined && run >= step.runs) continue;
      await step.before?.(run);
      fake.clearLog();
      const started = performance.now();
      await step.run(run);
      samples.get(step.label)?.push({ ms: performance.now() - started, bytes: gitBytesSent(fake) });
      await step.after?.(run);
    }
  }
  return samples;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}
