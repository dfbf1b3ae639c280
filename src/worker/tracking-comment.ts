import type { ArtifactInfo, Todo } from "../agent/ports.js";
import type { SubagentEvent } from "../agent/subagents.js";
import { truncateMiddle } from "../util/truncate-middle.js";

/** GitHub refuses a comment body over 65,536 characters; an edit that fails leaves the comment stale. */
export const MAX_TRACKING_COMMENT_CHARS = 65_000;

export type TrackingState =
  | { phase: "queued"; position: number }
  | { phase: "working"; step: string; todos: Todo[]; startedAt: number; unsandboxed?: boolean; subagents?: SubagentStep[] }
  | {
      phase: "done" | "no_changes" | "failed" | "cancelled" | "budget_exhausted";
      reason: string;
      summary?: string;
      pullRequestUrl?: string | null;
      kept?: string;
      stats: JobStats;
      unsandboxed?: boolean;
      subagents?: SubagentStep[];
      /** What the job wrote to the repository's memory, e.g. "saved `build-steps`: how to build". */
      memoryWrites?: string[];
      /** The tool name of each call a repository hook denied. */
      hookDenials?: string[];
      /** One line per background command or Monitor the job ran, e.g. "job-1: exited with code 0 after 4s: npm run dev". */
      backgroundJobs?: string[];
      /** The repository's MCP servers the job called, with the calls by tool. */
      mcpUsage?: Array<{ server: string; tools: Array<{ name: string; calls: number }> }>;
      /** The repository's MCP servers the job could not use, and why. */
      mcpFailures?: Array<{ server: string; error: string }>;
      /** What the job uploaded with UploadArtifact. */
      artifacts?: ArtifactInfo[];
    };

/** One subagent of the job, as the comment shows it: nested under its parent by depth. */
export type SubagentStep = SubagentEvent;

/** Subagent lines shown at most; a job that starts more says how many were left out. */
const MAX_SUBAGENT_LINES = 30;

export interface JobStats {
  durationMs: number;
  /** The job's own agent's turns. */
  turns: number;
  /** Turns its subagents took. @defaultValue 0 */
  subagentTurns?: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  costUsd: number;
}

/** "Hooks denied 3 tool calls: Bash ×2, Edit." */
function renderHookDenials(denials: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of denials) counts.set(name, (counts.get(name) ?? 0) + 1);
  const shown = [...counts].slice(0, 10).map(([name, count]) => `\`${oneLine(name)}\`${count > 1 ? ` ×${count}` : ""}`);
  const more = counts.size > 10 ? `, and ${counts.size - 10} more tools` : "";
  return `Hooks denied ${denials.length} tool call${denials.length === 1 ? "" : "s"}: ${shown.join(", ")}${more}.`;
}

/** "MCP servers used: `docs` (3 calls: `search` ×2, `fetch`), `local` (1 call: `tool_01`)." */
function renderMcpUsage(usage: NonNullable<Extract<TrackingState, { stats: JobStats }>["mcpUsage"]>): string {
  const servers = usage.slice(0, 10).map(({ server, tools }) => {
    const total = tools.reduce((sum, tool) => sum + tool.calls, 0);
    const named = tools.slice(0, 10).map((tool) => `${inlineCode(oneLine(tool.name))}${tool.calls > 1 ? ` ×${tool.calls}` : ""}`);
    const more = tools.length > 10 ? `, and ${tools.length - 10} more` : "";
    return `${inlineCode(oneLine(server))} (${total} call${total === 1 ? "" : "s"}: ${named.join(", ")}${more})`;
  });
  const more = usage.length > 10 ? `, and ${usage.length - 10} more servers` : "";
  return `MCP servers used: ${servers.join(", ")}${more}.`;
}

/** Marks the comment as this job's, so a rerun of the job (after a crash or retry) edits the same one. */
export function trackingMarker(jobId: string): string {
  return `<!-- tackle:tracking job=${jobId} -->`;
}

const TITLES: Record<Exclude<TrackingState["phase"], "queued" | "working">, string> = {
  done: "✅ Tackle finished",
  no_changes: "✅ Tackle finished: no changes needed",
  failed: "❌ Tackle failed",
  cancelled: "⏹️ Tackle was stopped",
  budget_exhausted: "⚠️ Tackle ran out of budget",
};

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}

function formatTokens(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

const SUBAGENT_ICONS: Record<SubagentStep["status"], string> = { running: "🔄", done: "✅", failed: "⚠️" };

function renderSubagents(steps: readonly SubagentStep[] | undefined): string[] {
  if (steps === undefined || steps.length === 0) return [];
  const shown = steps.slice(0, MAX_SUBAGENT_LINES).map((step) => {
    const indent = "  ".repeat(Math.max(0, step.depth - 1));
    const cost = step.status === "running" ? "" : `, $${step.costUsd.toFixed(2)}`;
    return `${indent}- ${SUBAGENT_ICONS[step.status]} \`${step.type}\`: ${oneLine(step.description)} (${step.turns} turn${step.turns === 1 ? "" : "s"}${cost})`;
  });
  const more = steps.length - shown.length;
  return ["", "Subagents:", ...shown, ...(more > 0 ? [`- … and ${more} more`] : [])];
}

/** Inline code that shows `text` as is: a command's backticks, @mentions and markup stay inert. */
function inlineCode(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(longest + 1);
  // A space on each side is stripped by the renderer; it is needed only beside a backtick.
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}

function renderTodos(todos: readonly Todo[]): string[] {
  return todos.map((todo) => {
    const box = todo.status === "completed" ? "[x]" : "[ ]";
    const text = todo.status === "in_progress" ? `**${todo.content}** (in progress)` : todo.content;
    return `- ${box} ${text}`;
  });
}

/**
 * The tracking comment's body for one state; pure (test/unit/worker/tracking-comment.test.ts checks
 * each state by value). A body that would pass GitHub's limit loses the middle of its longest text
 * (the agent's summary or todos), keeping the marker at the top and the stats at the bottom.
 */
export function renderTrackingComment(
  state: TrackingState,
  jobId: string,
  now: number = Date.now(),
  /** The command name for the "how to stop" hint; null where there are no commands (the Action). */
  commandName: string | null = "tackle",
  /** The job's page on the dashboard (TACKLE_PUBLIC_URL set). @defaultValue none */
  jobUrl?: string,
): string {
  return cutSafely(renderBody(state, jobId, now, commandName, jobUrl), MAX_TRACKING_COMMENT_CHARS, "cut to fit GitHub's comment limit");
}

/** The agent's summary at most; the sections after it stay whole. */
const MAX_SUMMARY_CHARS = 20_000;
/** A reason or what was kept (an error's text) at most. */
const MAX_REASON_CHARS = 2_000;

/**
 * `truncateMiddle` that leaves no code block open: a cut that removed a closing fence would turn
 * everything after it (the stats, the links) into code. Fences are counted line by line, as
 * GitHub's Markdown opens and closes them.
 */
function cutSafely(text: string, maxChars: number, hint: string): string {
  if (text.length <= maxChars) return text;
  const cut = truncateMiddle(text, maxChars - 16, hint);
  const start = cut.indexOf("\n[... ");
  const end = cut.indexOf(" ...]\n", start);
  if (start === -1 || end === -1) return cut;
  const [head, note, tail] = [cut.slice(0, start), cut.slice(start, end + 6), cut.slice(end + 6)];
  // A block the head opened is closed before the note; one the tail closes is opened again after it.
  const close = openFences(head) % 2 === 1 ? "\n```" : "";
  const reopen = openFences(tail) % 2 === 1 ? "```\n" : "";
  return `${head}${close}${note}${reopen}${tail}`;
}

function openFences(text: string): number {
  return text.split("\n").filter((line) => /^\s{0,3}(```|~~~)/.test(line)).length;
}

function renderBody(state: TrackingState, jobId: string, now: number, commandName: string | null, jobUrl: string | undefined): string {
  const lines: string[] = [trackingMarker(jobId)];
  if (state.phase === "queued") {
    lines.push(
      state.position <= 1
        ? "⏳ **Tackle** has queued this job; it starts shortly."
        : `⏳ **Tackle** has queued this job: position ${state.position} in the queue.`,
    );
    return lines.join("\n");
  }
  if (state.phase === "working") {
    lines.push(`🛠️ **Tackle is working on this** (${formatDuration(now - state.startedAt)} so far)`, "");
    lines.push(`Current step: ${state.step}`);
    lines.push(...renderSubagents(state.subagents));
    if (state.todos.length > 0) lines.push("", ...renderTodos(state.todos));
    if (state.unsandboxed) lines.push("", "⚠️ This job runs without a sandbox (`TACKLE_SANDBOX=off`).");
    if (jobUrl) lines.push("", `[Follow the transcript live](${jobUrl})`);
    if (commandName) lines.push("", `_Comment \`/${commandName} stop\` to cancel._`);
    return lines.join("\n");
  }
  lines.push(`**${TITLES[state.phase]}**`, "");
  if (state.pullRequestUrl) lines.push(`Pull request: ${state.pullRequestUrl}`, "");
  if (state.summary) lines.push(cutSafely(state.summary.trim(), MAX_SUMMARY_CHARS, "the summary was cut"), "");
  if (state.phase !== "done") lines.push(`Reason: ${cutSafely(state.reason, MAX_REASON_CHARS, "cut")}`, "");
  if (state.kept) lines.push(`Kept: ${cutSafely(state.kept, MAX_REASON_CHARS, "cut")}`, "");
  const subagents = renderSubagents(state.subagents);
  if (subagents.length > 0) lines.push(...subagents.slice(1), "");
  if (state.memoryWrites !== undefined && state.memoryWrites.length > 0) {
    lines.push("Memory written for later jobs:", ...state.memoryWrites.slice(0, MAX_SUBAGENT_LINES).map((write) => `- ${oneLine(write)}`), "");
  }
  if (state.hookDenials !== undefined && state.hookDenials.length > 0) lines.push(renderHookDenials(state.hookDenials), "");
  if (state.backgroundJobs !== undefined && state.backgroundJobs.length > 0) {
    const shown = state.backgroundJobs.slice(0, MAX_SUBAGENT_LINES).map((job) => `- ${inlineCode(oneLine(job))}`);
    const more = state.backgroundJobs.length - shown.length;
    lines.push("Background commands:", ...shown, ...(more > 0 ? [`- and ${more} more`] : []), "");
  }
  if (state.mcpUsage !== undefined && state.mcpUsage.length > 0) lines.push(renderMcpUsage(state.mcpUsage), "");
  if (state.mcpFailures !== undefined && state.mcpFailures.length > 0) {
    const shown = state.mcpFailures.slice(0, MAX_SUBAGENT_LINES).map((failure) => `- \`${oneLine(failure.server)}\`: ${oneLine(failure.error)}`);
    const more = state.mcpFailures.length - shown.length;
    lines.push("MCP servers the job could not use:", ...shown, ...(more > 0 ? [`- and ${more} more`] : []), "");
  }
  lines.push(...renderArtifacts(state.artifacts));
  if (jobUrl) lines.push(`[Transcript and artifacts](${jobUrl})`, "");
  const s = state.stats;
  const subagentTurns = s.subagentTurns ? ` (+${s.subagentTurns} in subagents)` : "";
  lines.push(
    `<sub>${formatDuration(s.durationMs)} · ${s.turns} turns${subagentTurns} · ${formatTokens(s.inputTokens + s.cacheReadTokens)} input / ` +
      `${formatTokens(s.outputTokens)} output tokens · $${s.costUsd.toFixed(2)}</sub>`,
  );
  if (state.unsandboxed) lines.push("", "⚠️ This job ran without a sandbox (`TACKLE_SANDBOX=off`).");
  return lines.join("\n");
}

/** "Artifacts:" and one line each: a link to the dashboard's download, or the name in the Action. */
function renderArtifacts(artifacts: readonly ArtifactInfo[] | undefined): string[] {
  if (artifacts === undefined || artifacts.length === 0) return [];
  const shown = artifacts.slice(0, MAX_SUBAGENT_LINES).map((artifact) => {
    // The name is the host's safe base name; the description is the agent's words, kept to one line.
    const label = `${artifact.name} (${artifact.id})`;
    const link = artifact.url === null ? inlineCode(label) : `[${label}](${artifact.url})`;
    return `- ${link}${artifact.description ? `: ${oneLine(artifact.description)}` : ""}`;
  });
  const more = artifacts.length - shown.length;
  return ["Artifacts:", ...shown, ...(more > 0 ? [`- and ${more} more`] : []), ""];
}
