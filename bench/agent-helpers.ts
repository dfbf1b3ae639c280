/**
 * Shared pieces of the agent benchmarks: a generated repository, a workspace over it, a tool context
 * with stand-in issue and pulls ports, tools whose own execution time is recorded, and a zero-latency
 * in-memory model.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import type { ModelClient, ModelMessage } from "../src/agent/model-client.js";
import type { IssuePort, IssueSnapshot, PullsPort } from "../src/agent/ports.js";
import type { Tool, ToolContext } from "../src/agent/tools/index.js";
import { silentLogger } from "../src/logging/logger.js";
import { detectSandbox, openLocalWorkspace, type Workspace } from "../src/workspace/index.js";
import { cleanGitEnv } from "../test/fakes/index.js";
import { seededRandom } from "./seeded-random.js";

export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), `tackle-bench-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const WORDS = ["order", "invoice", "customer", "widget", "payment", "session", "report", "shipment", "account", "ticket"];

/** One TypeScript-looking source file of about 40 lines (1.3 KB). */
function sourceFile(index: number, random: () => number): string {
  const word = WORDS[index % WORDS.length] as string;
  const Name = `${word[0]?.toUpperCase()}${word.slice(1)}${index}`;
  const other = Math.floor(random() * 1000);
  const lines = [
    `// Module ${index}: ${word} handling.`,
    `import { format${other} } from "../shared/format-${other % 50}.js";`,
    "",
    `export interface ${Name} {`,
    "  id: string;",
    "  createdAt: Date;",
    `  amount: number; // in cents`,
    "}",
    "",
    `export function handle${Name}Request(input: string): ${Name} {`,
    "  const trimmed = input.trim();",
    `  if (trimmed === "") throw new Error("empty ${word} request");`,
    `  return { id: trimmed, createdAt: new Date(), amount: ${Math.floor(random() * 100_000)} };`,
    "}",
    "",
  ];
  if (index % 97 === 0) lines.push(`// TODO(${word}): retry when the upstream times out`);
  if (index % 13 === 0) lines.push(`export const ${word}Limit${index} = ${Math.floor(random() * 500)}; // rate limit per minute`);
  for (let i = 0; i < 20; i++) {
    lines.push(`export function ${word}Step${i}(value: number): number {`, `  return value * ${i + 1} + ${Math.floor(random() * 10)};`, "}");
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Writes `count` source files under `dir` (100 per directory) plus a README; returns their paths
 * relative to `dir`.
 */
export function generateRepo(dir: string, count: number, seed = 42): string[] {
  const random = seededRandom(seed);
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const relative = `src/pkg${Math.floor(i / 100)}/module-${i}.ts`;
    if (i % 100 === 0) mkdirSync(path.join(dir, path.dirname(relative)), { recursive: true });
    writeFileSync(path.join(dir, relative), sourceFile(i, random));
    files.push(relative);
  }
  writeFileSync(path.join(dir, "README.md"), "# generated\n\nA repository generated for benchmarks.\n");
  writeFileSync(path.join(dir, "src/counter.ts"), "export const counter = 0;\n");
  return files;
}

/** `git init` and one commit of everything in `dir`, with a clean git environment. */
export async function commitAll(dir: string, home: string): Promise<void> {
  const env = cleanGitEnv(home);
  const git = (...args: string[]) => execa("git", args, { cwd: dir, env, extendEnv: false });
  await git("init", "--quiet", "-b", "main");
  await git("config", "user.name", "Bench");
  await git("config", "user.email", "bench@example.com");
  await git("add", "-A");
  await git("commit", "--quiet", "-m", "generated");
}

/** A worktree of `repo` as a local run gets it, sandboxed with bubblewrap when that works here. */
export async function openWorkspace(repo: string, home: string, branch: string): Promise<Workspace> {
  const sandbox = (await detectSandbox()).available ? "bwrap" : "off";
  return openLocalWorkspace({ repoPath: repo, branch, home, sandbox });
}

/** The issue the job works on, as GetIssue returns it; ReportToIssue posts nowhere. */
function issuePort(snapshot: Partial<IssueSnapshot>): IssuePort {
  return {
    get: async () => ({
      number: 1,
      title: "Benchmark issue",
      body: "Nothing to fix.",
      state: "open",
      labels: [],
      isPullRequest: false,
      comments: [],
      omittedComments: 0,
      ...snapshot,
    }),
    report: async () => ({ url: "printed" }),
  };
}

const pulls: PullsPort = {
  createOrUpdate: async () => ({ number: null, url: null, created: false, message: "no remote in a benchmark" }),
};

/** A tool context over a workspace's ports, with stand-ins for the GitHub side. */
export function contextFor(
  workspace: Pick<Workspace, "fs" | "exec" | "search" | "git" | "baseBranch">,
  signal: AbortSignal,
  issue: Partial<IssueSnapshot> = {},
): ToolContext {
  return {
    fs: workspace.fs,
    exec: workspace.exec,
    search: workspace.search,
    git: workspace.git,
    issue: issuePort(issue),
    pulls,
    state: { todos: [], notes: [] },
    baseBranch: workspace.baseBranch,
    signal,
    logger: silentLogger,
  };
}

export interface Span {
  start: number;
  end: number;
}

/** The tools with each `execute` timed: what the tool itself does, apart from the registry around it. */
export function timedTools(tools: readonly Tool[], spans: Span[]): Tool[] {
  return tools.map((tool) => ({
    ...tool,
    async execute(input: unknown, ctx: ToolContext) {
      const start = performance.now();
      try {
        return await tool.execute(input, ctx);
      } finally {
        spans.push({ start, end: performance.now() });
      }
    },
  }));
}

/** Milliseconds covered by the spans inside [from, to), overlaps counted once. */
export function coveredMs(spans: readonly Span[], from: number, to: number): number {
  const inside = spans
    .filter((span) => span.start >= from && span.start < to)
    .map((span) => ({ start: span.start, end: Math.min(span.end, to) }))
    .sort((a, b) => a.start - b.start);
  let total = 0;
  let reach = -Infinity;
  for (const span of inside) {
    const start = Math.max(span.start, reach);
    if (span.end > start) total += span.end - start;
    reach = Math.max(reach, span.end);
  }
  return total;
}

type Block = ModelMessage["content"][number];

export interface ScriptedCall {
  name: string;
  input: Record<string, unknown>;
}

/** A model reply calling `calls`, with a small fixed usage (no compaction, negligible cost). */
export function replyWith(calls: readonly ScriptedCall[], id: string): ModelMessage {
  const content: Block[] = calls.map((call, index) => ({
    type: "tool_use",
    id: `toolu_${id}_${index}`,
    name: call.name,
    input: call.input,
    caller: { type: "direct" },
  }));
  return {
    id: `msg_${id}`,
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-6",
    content,
    stop_reason: "tool_use",
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: 50,
      output_tokens: 40,
      cache_read_input_tokens: 2_000,
      cache_creation_input_tokens: 200,
      cache_creation: null,
      inference_geo: null,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: null,
      speed: null,
    },
  };
}

/** Answers from prepared replies, in order, with no latency of its own. */
export function inMemoryModel(replies: readonly ModelMessage[]): ModelClient {
  let next = 0;
  return {
    name: "in-memory",
    async create() {
      const reply = replies[next++];
      if (reply === undefined) throw new Error(`in-memory model: no reply ${next}`);
      return reply;
    },
  };
}
