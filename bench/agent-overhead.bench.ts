/**
 * Harness overhead per turn: a 200-turn session of a zero-latency in-memory model over a generated
 * repository of 2 000 files, through the real loop, registry, policy engine and workspace ports.
 * Each turn's wall time minus the time the tools' own `execute` took in that turn is what the
 * harness costs: request assembly, state rendering, schema parsing, policy checks, the read cache,
 * truncation, redaction and (in the second row) the JSONL transcript. The last two rows run with a
 * background command of the job running all along, so every file tool pauses the job's processes
 * around its check and open (Sandbox.pausing): an idle dev server, and a loop that forks all the time.
 */
import path from "node:path";
import { runAgent, type AgentProgressEvent } from "../src/agent/loop.js";
import { buildSystemPrompt } from "../src/agent/prompt/build-system-prompt.js";
import { coreTools, createPolicyEngine, createToolRegistry, denyingApprovalHandler } from "../src/agent/tools/index.js";
import { createTranscript } from "../src/agent/transcript.js";
import {
  commitAll,
  contextFor,
  coveredMs,
  generateRepo,
  inMemoryModel,
  openWorkspace,
  replyWith,
  tempDir,
  timedTools,
  type ScriptedCall,
  type Span,
} from "./agent-helpers.js";
import { seededRandom } from "./seeded-random.js";
import { ms, percentile, printTable } from "./table.js";
import { redactKnownTokens } from "../src/util/redact.js";

const FILES = 2_000;
const TURNS = 200;
const GOAL_P50_MS = 2;
/** A dev server waiting for requests: it creates no process between pauses. */
const IDLE_SERVER = "node -e \"require('http').createServer((q, s) => s.end('ok')).listen(8731, '127.0.0.1')\"";
/** The worst case: a shell loop writing to the job's /tmp, forking all the time. */
const BUSY_LOOP = "sleep 600 & while :; do date > /tmp/tick; sleep 0.05; done";

/** A plausible mix: mostly reads and searches, some planning, an edit every 20 turns, a few commands. */
function sessionScript(files: readonly string[]): ScriptedCall[][] {
  const random = seededRandom(7);
  const pick = () => files[Math.floor(random() * files.length)] as string;
  const turns: ScriptedCall[][] = [];
  let counter = 0;
  for (let turn = 0; turn < TURNS - 1; turn++) {
    if (turn % 20 === 10) {
      turns.push([{ name: "Edit", input: { file_path: "src/counter.ts", old_string: `counter = ${counter}`, new_string: `counter = ${counter + 1}` } }]);
      counter += 1;
    } else if (turn % 10 === 0) {
      turns.push([
        {
          name: "TodoWrite",
          input: {
            todos: [
              { content: `Investigate step ${turn}`, status: "completed" },
              { content: `Change step ${turn + 10}`, status: "in_progress" },
              { content: "Run the tests", status: "pending" },
            ],
          },
        },
        { name: "NoteWrite", input: { notes: [`turn ${turn}: counter is ${counter}`] } },
      ]);
    } else if (turn % 50 === 25) {
      turns.push([{ name: "Bash", input: { command: "cat src/counter.ts" } }]);
    } else if (turn % 25 === 7) {
      turns.push([{ name: "git_status", input: {} }]);
    } else if (turn % 7 === 3) {
      turns.push([{ name: "Grep", input: { pattern: `handle\\w+${turn}Request`, output_mode: "content", head_limit: 20 } }]);
    } else if (turn % 9 === 4) {
      turns.push([{ name: "Glob", input: { pattern: `src/pkg${turn % 20}/*.ts` } }]);
    } else {
      // One or two files; repeats of recent ones come from the read cache.
      turns.push(
        random() < 0.5
          ? [{ name: "Read", input: { file_path: pick() } }]
          : [
              { name: "Read", input: { file_path: pick() } },
              { name: "Read", input: { file_path: pick() } },
            ],
      );
    }
  }
  turns.push([{ name: "task_done", input: { summary: "Benchmark session finished." } }]);
  return turns;
}

interface SessionStats {
  overheads: number[];
  toolMs: number;
  wallMs: number;
  turns: number;
  reason: string;
}

async function session(
  repo: string,
  home: string,
  files: readonly string[],
  label: string,
  withTranscript: boolean,
  background?: string,
): Promise<SessionStats> {
  const workspace = await openWorkspace(repo, home, `tackle/bench-overhead-${label}`);
  try {
    if (background !== undefined) await workspace.exec.start?.(["bash", "-c", background], { onStdout: () => undefined });
    const spans: Span[] = [];
    const registry = createToolRegistry(timedTools(coreTools(), spans), { policy: createPolicyEngine(), approval: denyingApprovalHandler });
    const controller = new AbortController();
    const ctx = contextFor(workspace, controller.signal);
    const replies = sessionScript(files).map((calls, index) => replyWith(calls, String(index)));
    const transcript = withTranscript ? await createTranscript({ dir: path.join(home, "transcripts"), jobId: label, model: "claude-sonnet-4-6" }) : undefined;
    const starts: number[] = [];
    const onProgress = (event: AgentProgressEvent) => {
      if (event.type === "turn_started") starts.push(performance.now());
    };

    const started = performance.now();
    const result = await runAgent({
      model: inMemoryModel(replies),
      modelName: "claude-sonnet-4-6",
      tools: registry,
      ctx,
      system: buildSystemPrompt({ repo: "bench/generated", branch: workspace.branch, baseBranch: workspace.baseBranch, instructionFiles: [] }),
      initialMessage: redactKnownTokens("Benchmark the harness."),
      budgets: { maxTurns: TURNS, maxOutputTokensPerTurn: 4_096, maxCostUsd: 1_000, deadline: Number.MAX_SAFE_INTEGER },
      signal: controller.signal,
      onProgress,
      ...(transcript ? { transcript } : {}),
    });
    const ended = performance.now();
    await transcript?.close();

    const bounds = [...starts, ended];
    const overheads = starts.map((start, i) => {
      const end = bounds[i + 1] as number;
      return end - start - coveredMs(spans, start, end);
    });
    return { overheads, toolMs: coveredMs(spans, started, ended), wallMs: ended - started, turns: result.turns, reason: result.reason };
  } finally {
    await workspace.dispose();
  }
}

export async function run(): Promise<void> {
  const temp = tempDir("overhead");
  try {
    const repo = path.join(temp.dir, "repo");
    const home = path.join(temp.dir, "home");
    const files = generateRepo(repo, FILES);
    await commitAll(repo, home);

    // A short warm-up session loads and JITs the code paths, so the first measured turns are not compile time.
    await session(repo, home, files, "warmup", false);
    const rows: Array<[string, SessionStats]> = [
      ["loop + registry + tools' ports", await session(repo, home, files, "bare", false)],
      ["same, with the JSONL transcript", await session(repo, home, files, "transcript", true)],
      ["same, with an idle server in the background (file tools pause it)", await session(repo, home, files, "idle", true, IDLE_SERVER)],
      ["same, with a background loop forking every 50 ms (each pause lists /proc)", await session(repo, home, files, "busy", true, BUSY_LOOP)],
    ];

    printTable(
      ["session (200 turns, 2 000 files)", "turns", "end", "overhead p50", "overhead p95", "overhead max", "overhead total", "tools' own time", "wall"],
      rows.map(([label, s]) => [
        label,
        s.turns,
        s.reason,
        ms(percentile(s.overheads, 50)),
        ms(percentile(s.overheads, 95)),
        ms(Math.max(...s.overheads)),
        ms(s.overheads.reduce((a, b) => a + b, 0)),
        ms(s.toolMs),
        ms(s.wallMs),
      ]),
    );
    const production = rows[1]?.[1] as SessionStats;
    const p50 = percentile(production.overheads, 50);
    console.log(`\ngoal < ${GOAL_P50_MS} ms p50 (with the transcript, as jobs run): ${p50 < GOAL_P50_MS ? "met" : "not met"} (${ms(p50)})`);
    for (const [label, stats] of rows.slice(2)) {
      const busy = percentile(stats.overheads, 50);
      console.log(`${label}: ${ms(busy)} p50 (${busy < GOAL_P50_MS ? "within" : "over"} the goal)`);
    }
  } finally {
    temp.remove();
  }
}
