import type { z } from "zod";
import type { Logger } from "../../logging/logger.js";
import type { ExecPort, FsPort, GitPort, IssuePort, PullsPort, SearchPort, SessionState } from "../ports.js";

/** What a tool does to the world; the registry runs `read` calls of one turn in parallel. */
export type ToolAccess = "read" | "write" | "exec" | "network" | "state";

export type PolicyDecision =
  | { action: "allow" }
  | { action: "ask"; reason: string }
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
  /** Tool-specific argument checks (range limits, own-policy); the policy engine runs first. */
  checkArgs?(input: z.infer<Schema>, ctx: ToolContext): PolicyDecision | Promise<PolicyDecision>;
  execute(input: z.infer<Schema>, ctx: ToolContext): Promise<ToolResult>;
}

/** Erases the schema type so tools of different shapes fit in one list. */
export function defineTool<Schema extends z.ZodType>(tool: Tool<Schema>): Tool {
  return tool as unknown as Tool;
}
