import type { RepoExtensions } from "../config/repo-extensions.js";
import { SUBAGENT_TOOL_NAMES, subagentTypes } from "./subagent-types.js";
import type { SubagentType } from "./subagents.js";
import {
  callMcpToolTool,
  coreTools,
  createSkillTool,
  createTaskTool,
  jobListTool,
  jobOutputTool,
  jobStopTool,
  loadMcpToolsTool,
  memoryReadTool,
  memoryWriteTool,
  monitorTool,
  uploadArtifactTool,
  webFetchTool,
  worktreeTool,
} from "./tools/index.js";
import { isReadOnly, type Tool } from "./tools/tool.js";

export interface JobToolsInput {
  /** `owner/name` and the job's branch, for the subagents' system prompts. */
  repo: string;
  branch: string;
  extensions: RepoExtensions;
  /** Which optional ports the job has: each one's tools are offered only with it. */
  web: boolean;
  memory: boolean;
  mcp: boolean;
  /** Whether the job can run background commands (its sandbox can hold processes between calls). */
  background: boolean;
  /** A local run's worktrees (Worktree): the main agent's only, never a subagent's. @defaultValue false */
  worktrees?: boolean;
  /** Whether the job stores artifacts (UploadArtifact): the main agent's only. @defaultValue false */
  artifacts?: boolean;
}

export interface JobTools {
  /** The job's own agent's tools, in their byte-stable order. */
  main: Tool[];
  /** Every tool a subagent may get, by name (Task included). */
  subagentTools: ReadonlyMap<string, Tool>;
  /** The subagent types, each with the tools of `subagentTools` it lists. */
  types: SubagentType[];
  /** Whether a type only reads: its Task calls run in parallel. */
  isReadOnly: (type: string) => boolean;
}

/**
 * The tools of one job: the core ones, Task over the built-in and the repository's subagent types, and
 * the tools of the optional ports it has (skills, WebFetch, memory, MCP, background commands, a local
 * run's worktrees, artifacts), in the order the model sees them. New tools are appended: the order is part of the
 * prompt-cache prefix.
 */
export function buildJobTools(input: JobToolsInput): JobTools {
  const types = subagentTypes({ repo: input.repo, branch: input.branch }, input.extensions.agents);
  const core = coreTools();
  const webFetch = input.web ? [webFetchTool] : [];
  const byName = new Map<string, Tool>([...core, ...webFetch].map((tool) => [tool.name, tool]));
  // Task may start a writer; a tool this job does not offer counts as a writer too.
  const readOnlyTypes = new Set(
    types.filter((type) => type.tools.every((name) => name !== "Task" && isReadOnlyTool(byName.get(name)))).map((type) => type.name),
  );
  const taskTool = createTaskTool(types.map((type) => ({ name: type.name, description: type.description, readOnly: readOnlyTypes.has(type.name) })));
  byName.set(taskTool.name, taskTool);
  const offered = (names: readonly string[]) => names.filter((name) => SUBAGENT_TOOL_NAMES.includes(name) && byName.has(name));
  return {
    main: [
      ...core,
      taskTool,
      ...(input.extensions.skills.length > 0 ? [createSkillTool(input.extensions.skills)] : []),
      ...webFetch,
      ...(input.memory ? [memoryReadTool, memoryWriteTool] : []),
      ...(input.mcp ? [loadMcpToolsTool, callMcpToolTool] : []),
      ...(input.background ? [jobListTool, jobOutputTool, jobStopTool, monitorTool] : []),
      ...(input.worktrees === true ? [worktreeTool] : []),
      ...(input.artifacts === true ? [uploadArtifactTool] : []),
    ],
    subagentTools: byName,
    types: types.map((type) => ({ ...type, tools: offered(type.tools) })),
    isReadOnly: (type) => readOnlyTypes.has(type),
  };
}

function isReadOnlyTool(tool: Tool | undefined): boolean {
  return tool !== undefined && isReadOnly(tool.effects);
}
