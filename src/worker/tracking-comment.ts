import type { ArtifactInfo, Todo } from "../agent/ports.js";
import type { SubagentEvent } from "../agent/subagents.js";
import { agentProse, code, hiddenMarker, hostUrl, inert, joinMarkdown, link, md, quote, type SurfaceMarkdown } from "../util/surface-markdown.js";

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
      /** What the job wrote to the repository's memory. */
      memoryWrites?: MemoryWriteNote[];
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

/** One write to the repository's memory, as the comment lists it: "saved `build-steps`: how to build". */
export interface MemoryWriteNote {
  action: "saved" | "updated" | "deleted";
  name: string;
  /** The entry's description (the agent's words); none for a deletion. */
  description?: string;
}

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

/** How much of each text and list one rendering shows; the comment is rendered again with less when it would not fit. */
interface Limits {
  /** The agent's summary, in characters. */
  summary: number;
  /** A reason or what was kept (an error's text), in characters. */
  reason: number;
  /** Lines of each list (subagents, memory writes, background commands, MCP failures, artifacts). */
  lines: number;
  /** Todos of the checklist. */
  todos: number;
}

const LIMITS: readonly Limits[] = [
  { summary: 20_000, reason: 2_000, lines: MAX_SUBAGENT_LINES, todos: 200 },
  { summary: 8_000, reason: 1_000, lines: 10, todos: 50 },
  { summary: 2_000, reason: 300, lines: 3, todos: 10 },
];

/** Longest line of text from the job in a list, in characters. */
const MAX_LINE_CHARS = 120;

/** "Hooks denied 3 tool calls: `Bash` ×2, `Edit`." */
function renderHookDenials(denials: readonly string[]): SurfaceMarkdown {
  const counts = new Map<string, number>();
  for (const name of denials) counts.set(name, (counts.get(name) ?? 0) + 1);
  const shown = [...counts].slice(0, 10).map(([name, count]) => md`${code(oneLine(name))}${times(count)}`);
  const more = counts.size > 10 ? md`, and ${counts.size - 10} more tools` : md``;
  return md`Hooks denied ${denials.length} tool call${plural(denials.length)}: ${joinMarkdown(shown, ", ")}${more}.`;
}

const times = (count: number): SurfaceMarkdown => (count > 1 ? md` ×${count}` : md``);
const plural = (count: number): SurfaceMarkdown => (count === 1 ? md`` : md`s`);

/** "MCP servers used: `docs` (3 calls: `search` ×2, `fetch`), `local` (1 call: `tool_01`)." */
function renderMcpUsage(usage: NonNullable<Extract<TrackingState, { stats: JobStats }>["mcpUsage"]>): SurfaceMarkdown {
  const servers = usage.slice(0, 10).map(({ server, tools }) => {
    const total = tools.reduce((sum, tool) => sum + tool.calls, 0);
    const named = tools.slice(0, 10).map((tool) => md`${code(oneLine(tool.name))}${times(tool.calls)}`);
    const more = tools.length > 10 ? md`, and ${tools.length - 10} more` : md``;
    return md`${code(oneLine(server))} (${total} call${plural(total)}: ${joinMarkdown(named, ", ")}${more})`;
  });
  const more = usage.length > 10 ? md`, and ${usage.length - 10} more servers` : md``;
  return md`MCP servers used: ${joinMarkdown(servers, ", ")}${more}.`;
}

/** Marks the comment as this job's, so a rerun of the job (after a crash or retry) edits the same one. */
export function trackingMarker(jobId: string): SurfaceMarkdown {
  return hiddenMarker(`tackle:tracking job=${jobId}`);
}

const TITLES: Record<Exclude<TrackingState["phase"], "queued" | "working">, SurfaceMarkdown> = {
  done: md`✅ Tackle finished`,
  no_changes: md`✅ Tackle finished: no changes needed`,
  failed: md`❌ Tackle failed`,
  cancelled: md`⏹️ Tackle was stopped`,
  budget_exhausted: md`⚠️ Tackle ran out of budget`,
};

function formatDuration(ms: number): SurfaceMarkdown {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return md`${seconds}s`;
  return md`${Math.floor(seconds / 60)}m ${seconds % 60}s`;
}

function formatTokens(n: number): SurfaceMarkdown {
  return n >= 10_000 ? md`${inert((n / 1000).toFixed(1))}k` : md`${n}`;
}

const SUBAGENT_ICONS: Record<SubagentStep["status"], SurfaceMarkdown> = { running: md`🔄`, done: md`✅`, failed: md`⚠️` };

function renderSubagents(steps: readonly SubagentStep[] | undefined, maxLines: number): SurfaceMarkdown[] {
  if (steps === undefined || steps.length === 0) return [];
  const shown = steps.slice(0, maxLines).map((step) => {
    const indent = joinMarkdown(
      Array.from({ length: Math.max(0, step.depth - 1) }, () => md`  `),
      "",
    );
    const cost = step.status === "running" ? md`` : md`, $${inert(step.costUsd.toFixed(2))}`;
    return md`${indent}- ${SUBAGENT_ICONS[step.status]} ${code(oneLine(step.type))}: ${oneLine(step.description)} (${step.turns} turn${plural(step.turns)}${cost})`;
  });
  const more = steps.length - shown.length;
  return [md``, md`Subagents:`, ...shown, ...(more > 0 ? [md`- … and ${more} more`] : [])];
}

/** Text from the job as one inert line, cut to MAX_LINE_CHARS. */
function oneLine(text: string): SurfaceMarkdown {
  return inert(text, { maxChars: MAX_LINE_CHARS });
}

/** A todo's text at most, in characters. */
const MAX_TODO_CHARS = 500;

function renderTodos(todos: readonly Todo[], maxLines: number): SurfaceMarkdown[] {
  const shown = todos.slice(0, maxLines).map((todo) => {
    const box = todo.status === "completed" ? md`[x]` : md`[ ]`;
    const content = inert(todo.content, { maxChars: MAX_TODO_CHARS });
    return md`- ${box} ${todo.status === "in_progress" ? md`**${content}** (in progress)` : content}`;
  });
  const more = todos.length - shown.length;
  return more > 0 ? [...shown, md`- … and ${more} more`] : shown;
}

/**
 * The tracking comment's body for one state; pure (test/unit/worker/tracking-comment.test.ts checks
 * each state by value). Every text from the job is made inert (`inert`) or, for the agent's summary,
 * quoted as its prose (`agentProse`): only Tackle's own markup is live. A body that would pass
 * GitHub's limit is rendered again with shorter texts and lists, keeping the marker at the top and
 * the stats at the bottom.
 */
export function renderTrackingComment(
  state: TrackingState,
  jobId: string,
  now: number = Date.now(),
  /** The command name for the "how to stop" hint; null where there are no commands (the Action). */
  commandName: string | null = "tackle",
  /** The job's page on the dashboard (TACKLE_PUBLIC_URL set). @defaultValue none */
  jobUrl?: string,
): SurfaceMarkdown {
  let body = md``;
  for (const limits of LIMITS) {
    body = renderBody(state, jobId, now, commandName, jobUrl, limits);
    if (body.length <= MAX_TRACKING_COMMENT_CHARS) break;
  }
  return body;
}

function renderBody(state: TrackingState, jobId: string, now: number, commandName: string | null, jobUrl: string | undefined, limits: Limits): SurfaceMarkdown {
  const lines: SurfaceMarkdown[] = [trackingMarker(jobId)];
  if (state.phase === "queued") {
    lines.push(
      state.position <= 1
        ? md`⏳ **Tackle** has queued this job; it starts shortly.`
        : md`⏳ **Tackle** has queued this job: position ${state.position} in the queue.`,
    );
    return joinMarkdown(lines);
  }
  if (state.phase === "working") {
    lines.push(md`🛠️ **Tackle is working on this** (${formatDuration(now - state.startedAt)} so far)`, md``);
    lines.push(md`Current step: ${inert(state.step, { maxChars: limits.reason })}`);
    lines.push(...renderSubagents(state.subagents, limits.lines));
    if (state.todos.length > 0) lines.push(md``, ...renderTodos(state.todos, limits.todos));
    if (state.unsandboxed) lines.push(md``, md`⚠️ This job runs without a sandbox (\`TACKLE_SANDBOX=off\`).`);
    if (jobUrl) lines.push(md``, link(md`Follow the transcript live`, jobUrl));
    if (commandName) lines.push(md``, md`_Comment ${code(`/${commandName} stop`)} to cancel._`);
    return joinMarkdown(lines);
  }
  lines.push(md`**${TITLES[state.phase]}**`, md``);
  if (state.pullRequestUrl) lines.push(md`Pull request: ${hostUrl(state.pullRequestUrl)}`, md``);
  if (state.summary?.trim()) lines.push(quote(agentProse(state.summary.trim(), { maxChars: limits.summary, hint: "the summary was cut" })), md``);
  if (state.phase !== "done") lines.push(md`Reason: ${inert(state.reason, { maxChars: limits.reason })}`, md``);
  if (state.kept) lines.push(md`Kept: ${inert(state.kept, { maxChars: limits.reason })}`, md``);
  const subagents = renderSubagents(state.subagents, limits.lines);
  if (subagents.length > 0) lines.push(...subagents.slice(1), md``);
  lines.push(...renderList(md`Memory written for later jobs:`, state.memoryWrites, limits.lines, renderMemoryWrite));
  if (state.hookDenials !== undefined && state.hookDenials.length > 0) lines.push(renderHookDenials(state.hookDenials), md``);
  lines.push(...renderList(md`Background commands:`, state.backgroundJobs, limits.lines, (job) => code(truncate(job))));
  if (state.mcpUsage !== undefined && state.mcpUsage.length > 0) lines.push(renderMcpUsage(state.mcpUsage), md``);
  lines.push(
    ...renderList(md`MCP servers the job could not use:`, state.mcpFailures, limits.lines, (f) => md`${code(truncate(f.server))}: ${oneLine(f.error)}`),
  );
  lines.push(...renderList(md`Artifacts:`, state.artifacts, limits.lines, renderArtifact));
  if (jobUrl) lines.push(link(md`Transcript and artifacts`, jobUrl), md``);
  const s = state.stats;
  const subagentTurns = s.subagentTurns ? md` (+${s.subagentTurns} in subagents)` : md``;
  const tokens = md`${formatTokens(s.inputTokens + s.cacheReadTokens)} input / ${formatTokens(s.outputTokens)} output tokens`;
  lines.push(md`<sub>${formatDuration(s.durationMs)} · ${s.turns} turns${subagentTurns} · ${tokens} · $${inert(s.costUsd.toFixed(2))}</sub>`);
  if (state.unsandboxed) lines.push(md``, md`⚠️ This job ran without a sandbox (\`TACKLE_SANDBOX=off\`).`);
  return joinMarkdown(lines);
}

/** A titled list of at most `maxLines` items and "and N more", then a blank line; nothing when empty. */
function renderList<T>(title: SurfaceMarkdown, items: readonly T[] | undefined, maxLines: number, render: (item: T) => SurfaceMarkdown): SurfaceMarkdown[] {
  if (items === undefined || items.length === 0) return [];
  const shown = items.slice(0, maxLines).map((item) => md`- ${render(item)}`);
  const more = items.length - shown.length;
  return [title, ...shown, ...(more > 0 ? [md`- and ${more} more`] : []), md``];
}

/** "saved `build-steps`: how to build" */
function renderMemoryWrite(write: MemoryWriteNote): SurfaceMarkdown {
  const description = write.description ? md`: ${oneLine(write.description)}` : md``;
  return md`${inert(write.action)} ${code(truncate(write.name))}${description}`;
}

/** A link to the dashboard's download, or the name in the Action; the description is the agent's words, on one line. */
function renderArtifact(artifact: ArtifactInfo): SurfaceMarkdown {
  const label = `${artifact.name} (${artifact.id})`;
  const shown = artifact.url === null ? code(label) : link(inert(label), artifact.url);
  return artifact.description ? md`${shown}: ${oneLine(artifact.description)}` : shown;
}

/** Code shown in a list, on one line, cut to MAX_LINE_CHARS. */
function truncate(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_LINE_CHARS ? `${flat.slice(0, MAX_LINE_CHARS - 1)}…` : flat;
}
