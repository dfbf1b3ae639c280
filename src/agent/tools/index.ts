import { bashTool } from "./bash.js";
import { createPullRequestTool } from "./create-pull-request.js";
import { editTool } from "./edit.js";
import { getIssueTool } from "./get-issue.js";
import { gitBranchTool } from "./git-branch.js";
import { gitCommitTool } from "./git-commit.js";
import { gitDiffTool } from "./git-diff.js";
import { gitLogTool } from "./git-log.js";
import { gitStatusTool } from "./git-status.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { noteWriteTool } from "./note-write.js";
import { readTool } from "./read.js";
import { reportToIssueTool } from "./report-to-issue.js";
import { taskDoneTool } from "./task-done.js";
import { todoWriteTool } from "./todo-write.js";
import type { Tool } from "./tool.js";
import { writeTool } from "./write.js";

/**
 * The core tools in the order the model sees them. The order is part of the prompt-cache prefix:
 * append new tools, do not reorder.
 */
export function coreTools(): Tool[] {
  return [
    readTool,
    writeTool,
    editTool,
    globTool,
    grepTool,
    bashTool,
    todoWriteTool,
    noteWriteTool,
    getIssueTool,
    reportToIssueTool,
    gitStatusTool,
    gitDiffTool,
    gitLogTool,
    gitCommitTool,
    gitBranchTool,
    createPullRequestTool,
    taskDoneTool,
  ];
}

export { createSkillTool } from "./skill.js";
export { createTaskTool } from "./task.js";
export { memoryReadTool } from "./memory-read.js";
export { memoryWriteTool } from "./memory-write.js";
export { webFetchTool } from "./web-fetch.js";
export { loadMcpToolsTool } from "./load-mcp-tools.js";
export { callMcpToolTool } from "./call-mcp-tool.js";
export { jobListTool } from "./job-list.js";
export { jobOutputTool } from "./job-output.js";
export { jobStopTool } from "./job-stop.js";
export { monitorTool } from "./monitor.js";
export { worktreeTool } from "./worktree.js";
export { uploadArtifactTool } from "./upload-artifact.js";
export { createApprovalGate } from "../policy/approval-gate.js";
export { createPublishApproval } from "../policy/publish-approval.js";
export { createToolRegistry, DEFAULT_MAX_RESULT_CHARS, type ToolRegistry, type ToolRegistryOptions } from "./registry.js";
export { createToolHooks } from "./tool-hooks.js";
export { canonicalAction } from "./canonical-action.js";
export { defineTool } from "./tool.js";
export type { Tool, ToolCall, ToolContext, ToolEffects } from "./tool.js";

export * from "../policy/index.js";
