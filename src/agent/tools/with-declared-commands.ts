import type { BackgroundJobs } from "../background-jobs.js";
import type { ExecPort } from "../ports.js";
import type { Tool, ToolContext } from "./tool.js";

/**
 * The context a tool runs with: one that does not declare running commands (`runs`, `runsSkillCommand`,
 * or `delegates`, whose subagent's calls are checked one by one) gets ports that refuse to start any,
 * so a command can never run under a name the policy and hooks do not reduce to `Bash`.
 */
export function withDeclaredCommands(tool: Pick<Tool, "name" | "effects">, ctx: ToolContext): ToolContext {
  const { effects } = tool;
  if (effects.runs !== undefined || effects.runsSkillCommand !== undefined || effects.delegates === true) return ctx;
  const refuse = (): never => {
    throw new Error(`${tool.name} tried to run a command but declares no \`runs\` effect, so the policy and hooks never saw it`);
  };
  const { exec, background } = ctx;
  const guarded: ExecPort = {
    get sandboxed() {
      return exec.sandboxed;
    },
    run: async () => refuse(),
    ...(exec.start === undefined ? {} : { start: async () => refuse() }),
    ...(exec.pausing === undefined ? {} : { pausing: (task) => exec.pausing!(task) }),
  };
  return { ...ctx, exec: guarded, ...(background === undefined ? {} : { background: refusingStarts(background, refuse) }) };
}

/** The job's background commands, each method listed, so a method added there does not compile here until someone decides. */
function refusingStarts(background: BackgroundJobs, refuse: () => never): BackgroundJobs {
  return {
    startBash: async () => refuse(),
    startMonitor: async () => refuse(),
    list: () => background.list(),
    read: (id, waitMs, signal) => background.read(id, waitMs, signal),
    stop: (id) => background.stop(id),
    takeEvents: () => background.takeEvents(),
    stopAll: () => background.stopAll(),
  };
}
