/**
 * How long `tackle --help` and `tackle --version` take from a cold process, against the floor of
 * starting node itself (`node -e 0`), measured alternately so both see the same machine load. Runs
 * the built CLI (`npm run bench` builds first): the bundle is split per command, so these load only
 * dist/cli.js.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ms, percentile, printTable } from "./table.js";

const RUNS = 21;
const GOAL_MS = 150;
/** `TACKLE_BENCH_CLI` times another build of the CLI (e.g. `node scripts/build.mjs --outdir tmp/x`). */
const cli = path.resolve(process.env.TACKLE_BENCH_CLI ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "dist", "cli.js"));

function time(args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}: ${result.stderr.toString()}`);
  return elapsed;
}

export async function run(): Promise<void> {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  const samples = { help: [] as number[], version: [] as number[], floor: [] as number[] };
  for (let i = -1; i < RUNS; i += 1) {
    const help = time([cli, "--help"]);
    const version = time([cli, "--version"]);
    const floor = time(["-e", "0"]);
    if (i < 0) continue; // warm the file cache
    samples.help.push(help);
    samples.version.push(version);
    samples.floor.push(floor);
  }
  const row = (label: string, values: number[]) => [label, ms(percentile(values, 50)), ms(percentile(values, 95))];
  const shown = path.relative(process.cwd(), cli);
  console.log(`${RUNS} runs each, alternating\n`);
  printTable(
    ["command", "p50", "p95"],
    [row(`node ${shown} --help`, samples.help), row(`node ${shown} --version`, samples.version), row("node -e 0 (floor)", samples.floor)],
  );
  const help = percentile(samples.help, 50);
  const floor = percentile(samples.floor, 50);
  console.log("");
  printTable(["goal", "measured", "status"], [[`tackle --help ≤ ${GOAL_MS} ms`, `${ms(help)} (node alone ${ms(floor)})`, help <= GOAL_MS ? "met" : "not met"]]);
}
