/**
 * `Grep` through the tool registry (schema, policy, the workspace's search port, result shaping,
 * redaction, truncation) against running the `rg` binary directly with the same arguments, on a
 * generated repository of 10 000 files. The arguments of the direct run are the ones the tool sent,
 * recorded from a first call, so both do the same search. No tool result comes from the read cache:
 * each call carries a different `head_limit`, above the number of lines, so the cache key changes
 * while the search and its result stay the same (checked: every timed call reaches ripgrep). One
 * registry per query, as a job has one: building one per call would time its garbage collection. The last column is the tool's time minus its
 * search port's (spawning and running rg) in the same call: what the registry and tool add, which
 * stays put when a loaded machine makes the process timings wander.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { rgPath } from "@vscode/ripgrep";
import type { ExecPort, GitPort, SearchPort } from "../src/agent/ports.js";
import { coreTools, createPolicyEngine, createToolRegistry, denyingApprovalHandler, type ToolContext, type ToolRegistry } from "../src/agent/tools/index.js";
import { createPathGuard, createSearch } from "../src/workspace/index.js";
import { contextFor, generateRepo, tempDir } from "./agent-helpers.js";
import { ms, percentile, printTable } from "./table.js";

const FILES = 10_000;
const RUNS = 21;
const WARMUP = 2;
const GOAL_RATIO = 1.2;

const QUERIES: Array<{ label: string; input: Record<string, unknown> }> = [
  { label: "few matches (~100 lines)", input: { pattern: "TODO\\(\\w+\\): retry", output_mode: "content" } },
  { label: "many matches (~770 lines, result cut to 30 000 chars)", input: { pattern: "rate limit per minute", output_mode: "content" } },
  {
    label: "case-insensitive, glob, 2 lines of context",
    input: { pattern: "EMPTY INVOICE REQUEST", output_mode: "content", case_insensitive: true, glob: "src/pkg1*/**", context: 2 },
  },
];

/** Search and path guard of the workspace layer; Grep needs no command or git port. */
function grepContext(root: string, search: SearchPort): ToolContext {
  const unused = (port: string) => () => Promise.reject(new Error(`the ${port} port is not used by Grep`));
  const exec: ExecPort = { sandboxed: false, run: unused("exec") };
  const git = new Proxy({}, { get: (_target, name) => unused(`git.${String(name)}`) }) as GitPort;
  return contextFor({ fs: createPathGuard(root), exec, search, git, baseBranch: "main" }, new AbortController().signal);
}

/** The Grep tool through the registry; returns its wall time. */
async function viaTool(registry: ToolRegistry, ctx: ToolContext, input: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  const [result] = await registry.runCalls([{ id: "toolu_bench", name: "Grep", input }], ctx);
  const elapsed = performance.now() - started;
  if (result === undefined || result.is_error) throw new Error(`Grep failed: ${result?.content ?? "no result"}`);
  return elapsed;
}

/** rg itself, output collected in full, as a caller of the binary would. */
function viaRipgrep(root: string, args: readonly string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, args, { cwd: root, env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" }, stdio: ["ignore", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.once("error", reject);
    child.once("close", (code) => {
      const output = Buffer.concat(chunks).toString("utf8");
      if (code !== 0 || output === "") reject(new Error(`rg exited with ${code}, ${output.length} characters of output`));
      else resolve(performance.now() - started);
    });
  });
}

const median = (values: number[]) => percentile(values, 50);

export async function run(): Promise<void> {
  const temp = tempDir("grep");
  try {
    const root = path.join(temp.dir, "repo");
    generateRepo(root, FILES);
    const search = createSearch(root);
    // Records the arguments the tool sends and how long the search port took, to split the tool's time.
    let lastArgs: readonly string[] = [];
    let lastPortMs = 0;
    let searches = 0;
    const recording: SearchPort = {
      onHost: search.onHost,
      async ripgrep(args, options) {
        lastArgs = args;
        searches += 1;
        const started = performance.now();
        try {
          return await search.ripgrep(args, options);
        } finally {
          lastPortMs = performance.now() - started;
        }
      },
    };
    const ctx = grepContext(root, recording);

    const rows: Array<Array<string | number>> = [];
    let worst = 0;
    for (const query of QUERIES) {
      const registry = createToolRegistry(coreTools(), { policy: createPolicyEngine(), approval: denyingApprovalHandler });
      let call = 0;
      const fresh = () => ({ ...query.input, head_limit: 1_000_000 + call++ });
      await viaTool(registry, ctx, fresh());
      // What the workspace's search port runs: its own --no-config, then the tool's arguments.
      const args = ["--no-config", ...lastArgs];
      const tool: number[] = [];
      const outside: number[] = [];
      const direct: number[] = [];
      for (let i = 0; i < WARMUP + RUNS; i++) {
        // Interleaved, each going first every other time, so drift in the machine's load hits both alike.
        const d1 = i % 2 === 1 ? await viaRipgrep(root, args) : undefined;
        const before = searches;
        const t = await viaTool(registry, ctx, fresh());
        if (searches !== before + 1) throw new Error("a timed Grep call was served from the cache");
        const beyondSearch = t - lastPortMs;
        const d = d1 ?? (await viaRipgrep(root, args));
        if (i >= WARMUP) {
          tool.push(t);
          outside.push(beyondSearch);
          direct.push(d);
        }
      }
      const ratio = median(tool) / median(direct);
      worst = Math.max(worst, ratio);
      rows.push([query.label, ms(median(direct)), ms(median(tool)), `${ratio.toFixed(2)}×`, ms(median(outside))]);
    }

    printTable([`query (${FILES.toLocaleString("en")} files, median of ${RUNS})`, "rg directly", "Grep tool", "ratio", "tool's time outside rg"], rows);
    console.log(`\ngoal ≤ ${GOAL_RATIO}× rg: ${worst <= GOAL_RATIO ? "met" : "not met"} (worst ${worst.toFixed(3)}×)`);
  } finally {
    temp.remove();
  }
}
