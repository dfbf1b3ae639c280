import type { z } from "zod";
import type { Logger } from "../../logging/logger.js";
import type { ExecPort, FsPort, GitPort, IssuePort, PullsPort, SearchPort, SessionState } from "../ports.js";

/** What a tool does to the world; the registry runs `read` calls of one turn in parallel. */
export type ToolAccess = "read" | "write" | "exec" | "network" | "state";

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
  state: SessionState;
  /** The base branch the PR targets (default branch of the repo, or the PR's base). */
  baseBranch: string;
  /** Whether create_pull_request opens drafts when the model does not say (the repo's `draft_pr`). @defaultValue true */
  draftByDefault?: boolean;
  signal: AbortSignal;
  logger: Logger;
}

export interface ToolResult {
  content: string;
  isError?: boolean;
}

export interface Tool<Schema extends z.ZodType = z.ZodType> {
  /** LLM-facing name; part of the public contract. */
  name: string;
  description: string;
  inputSchema: Schema;
  access: ToolAccess;
  /**
   * The registry may serve a repeated call from cache until a non-read call runs. Only for tools
   * whose result depends on nothing but the worktree.
   * @defaultValue false
   */
  cacheable?: boolean;
  /** Said after a result cut to size, e.g. "use Read with offset and limit to see the rest". */
  truncationHint?: string;
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
  runCalls(calls: readonly ToolCall[], ctx: ToolContext): Promise<ToolCallResult[]>;
}
