import type { z } from "zod";
import type { Logger } from "../../logging/logger.js";
import type { InvalidToolInput } from "../model-client.js";
import type { BackgroundJobs } from "../background-jobs.js";
import type {
  ArtifactPort,
  ExecPort,
  FsPort,
  GitPort,
  IssuePort,
  MemoryPort,
  PublishApproval,
  PullsPort,
  SearchPort,
  SessionState,
  WebPort,
  WorktreePort,
} from "../ports.js";
import type { McpGateway } from "../mcp/mcp-gateway.js";
import type { SideCalls } from "../side-calls.js";
import type { SkillPort } from "../skills.js";
import type { SubagentPort } from "../subagents.js";

/** An input field of a tool that holds a worktree path (a string) or several (a string array). */
export type PathField<Input> = Extract<keyof Input, string>;

/**
 * What a tool touches, declared once beside its code. The policy engine decides from this, never
 * from the tool's name, and the registry refuses a tool that declares nothing. Paths and commands
 * are named by the input field that holds them, so the engine checks what the call really names.
 * See docs/adding-a-tool.md.
 */
export interface ToolEffects<Input = Record<string, unknown>> {
  /**
   * Reads the files (or searches the directory) at the path in this field; when the field is absent
   * from a call, the whole worktree. Files that usually hold credentials need approval.
   * `names: true` for a tool that lists file names and reads no contents (never asks).
   * `bySearch: true` for a tool that reads through the SearchPort: paused only where ripgrep runs on the host.
   */
  reads?: { path: PathField<Input>; names?: true; bySearch?: true };
  /**
   * Writes the file at the path in this field: a protected path is refused, a credentials file needs
   * approval, and the diff cap applies. `preview` returns the file's content after the call (given
   * its content now, `undefined` when absent), or `undefined` when the call would change nothing; it
   * must be pure and cheap, and lets the engine keep the branch's diff size without running git.
   * A writer without a preview costs a measurement with git at the next write.
   */
  writes?: { path: PathField<Input>; preview?(input: Input, current: string | undefined): string | undefined };
  /**
   * Runs the shell command in this field, in the sandbox: the shell rules apply, and any file may change.
   * `inBackground`: the command keeps running after the call (Monitor); policy and hooks see it as
   * `Bash` with `run_in_background: true`.
   */
  runs?: { command: PathField<Input>; inBackground?: true };
  /**
   * What it does with git: `"read"` (status, diff, log), `"branch"` (creates or switches branches,
   * which rewrites the worktree), or `{ commit }`: stages and commits the paths in that field (every
   * change when absent), so protected paths in the commit are refused.
   */
  git?: "read" | "branch" | { commit: PathField<Input> };
  /** Pushes the branch and opens or updates its pull request: the branch's whole diff is checked first. */
  publishes?: true;
  /** Reads this job's issue, or writes on it (a comment), through the issue port. */
  issue?: "read" | "write";
  /** Changes only the session's own state (checklist, notes, the end of the run, the tools on offer). */
  session?: true;
  /** Fetches the URL in this field, on the host (never from the sandbox), within the job's allow-list: a read. */
  fetches?: { url: PathField<Input> };
  /** Reads the repository's durable memory, or writes it (which outlives the job, so it may need approval). */
  memory?: "read" | "write";
  /**
   * Runs a subagent whose own tool calls go through the policy one by one. Whether a call only reads
   * depends on the subagent's type: the tool's `readOnlyCall` says.
   */
  delegates?: true;
  /**
   * Calls a tool of one of the repository's MCP servers, which the host reaches: whatever it does is
   * outside the sandbox's view. The tool's `checkArgs` asks once per MCP tool per job unless its server
   * is `trusted` in the repo config. Which MCP tool: `{ tool, arguments }` names the input fields holding
   * its `server__tool` name and its arguments (CallMcpTool); `{ qualified }` is a fixed one whose whole
   * input is the arguments (an activated `mcp__…` tool). Policy and hooks see the call as `mcp__<server>__<tool>`.
   */
  callsMcp?: { tool: PathField<Input>; arguments: PathField<Input> } | { qualified: string };
  /**
   * Runs this command line, which the default branch's skill folder defines, in the sandbox, with the
   * input as JSON on stdin: policy and hooks see it as `Bash` with this command; any file may change.
   */
  runsSkillCommand?: { command: string };
  /**
   * Reads the job's background commands (their list, their output), or stops one. Starting one is
   * `runs`: the command goes through the shell rules like any other.
   */
  background?: "read" | "stop";
}

/** Whether a tool only reads: the registry runs such calls of one turn in parallel, and serves them from its cache. */
export function isReadOnly(effects: ToolEffects): boolean {
  return (
    effects.writes === undefined &&
    effects.runs === undefined &&
    (effects.git === undefined || effects.git === "read") &&
    effects.publishes === undefined &&
    effects.issue !== "write" &&
    effects.session === undefined &&
    effects.memory !== "write" &&
    effects.delegates === undefined &&
    effects.runsSkillCommand === undefined &&
    effects.callsMcp === undefined &&
    effects.background !== "stop"
  );
}

/** Whether one parsed call only reads: its tool's own judgement for a delegating tool, else its effects. */
export function isReadOnlyCall(tool: Tool, input: unknown): boolean {
  if (tool.effects.delegates === true) return tool.readOnlyCall?.(input) ?? false;
  return isReadOnly(tool.effects);
}

/**
 * Throws unless the tool declares at least one effect, each naming a field its input schema has:
 * a tool that declares nothing, or names a field it does not take, would pass the policy unchecked.
 */
export function assertDeclaresEffects(tool: Tool): void {
  const effects = (tool as { effects?: ToolEffects }).effects;
  const declared = effects === undefined ? [] : Object.entries(effects).filter(([, value]) => value !== undefined);
  if (declared.length === 0) {
    throw new Error(`tool ${tool.name} declares no effects: say what it reads, writes, runs or publishes (docs/adding-a-tool.md)`);
  }
  const shape = (tool.inputSchema as { shape?: Record<string, unknown> }).shape ?? {};
  const fields = [
    effects?.reads?.path,
    effects?.writes?.path,
    effects?.runs?.command,
    typeof effects?.git === "object" ? effects.git.commit : undefined,
    effects?.fetches?.url,
    effects?.callsMcp !== undefined && "tool" in effects.callsMcp ? effects.callsMcp.tool : undefined,
    effects?.callsMcp !== undefined && "tool" in effects.callsMcp ? effects.callsMcp.arguments : undefined,
  ];
  for (const field of fields) {
    if (field !== undefined && !(field in shape))
      throw new Error(`tool ${tool.name}: its effects name the input field "${field}", which its schema does not have`);
  }
}

export type PolicyDecision =
  | { action: "allow" }
  | {
      action: "ask";
      reason: string;
      /**
       * Questions with the same key are asked once per registry: after one approval, later calls
       * with this key run without asking again (e.g. "diff-size" once a large diff is approved).
       */
      approvalKey?: string;
    }
  | { action: "deny"; reason: string };

/** Everything a tool may touch, bound to one worktree and one issue. */
export interface ToolContext {
  fs: FsPort;
  exec: ExecPort;
  search: SearchPort;
  git: GitPort;
  issue: IssuePort;
  pulls: PullsPort;
  /** Asks a maintainer about publishing a commit the host's check holds back (require_approval_above). @defaultValue none: refused */
  approvePublish?: PublishApproval;
  state: SessionState;
  /** The base branch the PR targets (default branch of the repo, or the PR's base). */
  baseBranch: string;
  /** Whether create_pull_request opens drafts when the model does not say (the repo's `draft_pr`). @defaultValue true */
  draftByDefault?: boolean;
  signal: AbortSignal;
  logger: Logger;
  /** WebFetch's host fetcher; absent when WebFetch is off for this job. */
  web?: WebPort;
  /** The repository's durable memory; absent when it is off (and for subagents). */
  memory?: MemoryPort;
  /** Runs subagents (Task); absent where Task is not offered. */
  subagents?: SubagentPort;
  /** The repository's skills (Skill); absent when it has none. */
  skills?: SkillPort;
  /** The repository's MCP servers behind the gateway; absent when it has none (and for subagents). */
  mcp?: McpGateway;
  /** The job's background commands and Monitors; absent where they are not offered (subagents, no sandbox support). */
  background?: BackgroundJobs;
  /** Model calls a tool makes on the job's behalf (WebFetch's prompt), counted and recorded. */
  sideCalls?: SideCalls;
  /** The job's artifacts (UploadArtifact, ReportToIssue's `artifact_ids`); absent where nothing stores them (and for subagents). */
  artifacts?: ArtifactPort;
  /**
   * A local run's worktrees (Worktree), which move `fs`, `exec`, `search` and `git` between checkouts;
   * absent outside local runs (and for subagents).
   */
  worktrees?: WorktreePort;
  /**
   * Where the call sits in the job's tree of conversations, set by the registry for each call:
   * `main/3/2` is the second tool call of the main agent's third turn. Subagents and side calls are
   * recorded in the transcript under it.
   */
  callPath?: string;
  /** How deep the calling agent is: 0 for the job's own agent, 1 for its subagents, … @defaultValue 0 */
  depth?: number;
}

export interface ToolResult {
  content: string;
  isError?: boolean;
  /**
   * Who wrote the result's text, beyond the repository and its maintainers: each names an outside source
   * (`@login`, a URL, `MCP server "docs"`); empty when there is none. A tool that brings in outside text
   * (`fetches`, `callsMcp`, `issue: "read"`) says so per result: without it, its result counts as outside
   * text (see outsideSourcesOf).
   */
  outsideSources?: readonly string[];
}

export interface Tool<Schema extends z.ZodType = z.ZodType> {
  /** LLM-facing name; part of the public contract. */
  name: string;
  description: string;
  inputSchema: Schema;
  /** What the tool reads, writes, runs or publishes; the policy engine decides from this alone. */
  effects: ToolEffects<z.infer<Schema>>;
  /**
   * The registry may serve a repeated call from cache until a non-read call runs. Only for tools
   * whose result depends on nothing but the worktree.
   * @defaultValue false
   */
  cacheable?: boolean;
  /** Said after a result cut to size, e.g. "use Read with offset and limit to see the rest". */
  truncationHint?: string;
  /**
   * For a tool with `delegates`: whether this call (its parsed input) only reads, so it may run beside
   * the other reads of its turn. @defaultValue false
   */
  readOnlyCall?(input: z.infer<Schema>): boolean;
  /**
   * The definition's input schema when it is not the zod schema's (a skill's tool, declared in JSON
   * Schema by its SKILL.md); the zod schema then only checks that the input is an object.
   */
  jsonSchema?: { type: "object"; [key: string]: unknown };
  /** Tool-specific argument checks (range limits, own-policy); the policy engine runs first. */
  checkArgs?(input: z.infer<Schema>, ctx: ToolContext): PolicyDecision | Promise<PolicyDecision>;
  execute(input: z.infer<Schema>, ctx: ToolContext): Promise<ToolResult>;
}

/** Erases the schema type so tools of different shapes fit in one list. */
export function defineTool<Schema extends z.ZodType>(tool: Tool<Schema>): Tool {
  return tool as unknown as Tool;
}

/** One tool_use block as the model sent it; `input` is untrusted until the schema parses it. */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
  /** Set when the model's input was not valid JSON (`input` is then `{}`): the call is answered with an error, never run. */
  invalidInput?: InvalidToolInput;
}

export interface ToolCallResult {
  tool_use_id: string;
  content: string;
  is_error: boolean;
}

/** The tool definition as the Messages API takes it. */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: { type: "object"; [key: string]: unknown };
}

/**
 * What the agent loop sees of the registry: the definitions to offer (byte-stable order), and a
 * runner for one turn's calls that never throws for a tool's failure (it becomes is_error), runs
 * read-only calls in parallel, and returns results in the calls' order.
 */
export interface ToolRunner {
  definitions(): ToolDefinition[];
  /** How many of the definitions never change in a run: the request's tools breakpoint sits on the last of them. @defaultValue all */
  readonly stableCount?: number;
  /** `ctx.callPath`, when set, is the turn's prefix (`main/3`): each call gets `<prefix>/<its 1-based index>`. */
  runCalls(calls: readonly ToolCall[], ctx: ToolContext): Promise<ToolCallResult[]>;
}
