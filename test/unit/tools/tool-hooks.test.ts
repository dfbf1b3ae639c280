import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  coreTools,
  createToolHooks,
  createToolRegistry,
  denyingApprovalHandler,
  type ApprovalHandler,
  type PolicyEngine,
} from "../../../src/agent/tools/index.js";
import type { ToolHooksConfig } from "../../../src/agent/tools/tool-hooks.js";
import type { ToolCallResult } from "../../../src/agent/tools/tool.js";
import { createHarness, type Harness } from "./helpers.js";

let h: Harness;
let log: string;
beforeEach(async () => {
  h = await createHarness();
  log = path.join(h.repo.home, "events.log");
});
afterEach(async () => {
  await h.repo.cleanup();
});

const allowAll: PolicyEngine = { check: async () => ({ action: "allow" }), noteOutsideText: () => undefined };

/** Denies (exit 2) any Bash command mentioning `rm -rf`, recording each payload it is given. */
const denyRm = (logFile: string) =>
  `input=$(cat); printf '%s\\n' "pre $input" >> ${logFile}; ` +
  `if printf '%s' "$input" | grep -q 'rm -rf'; then echo 'rm -rf is not allowed here; delete files one by one' >&2; echo ignored-stdout; exit 2; fi`;

async function run(
  name: string,
  input: unknown,
  config: Partial<ToolHooksConfig>,
  options: { policy?: PolicyEngine; approval?: ApprovalHandler } = {},
): Promise<ToolCallResult> {
  const hooks = createToolHooks({ PreToolUse: [], PostToolUse: [], ...config });
  const registry = createToolRegistry(coreTools(), { policy: options.policy ?? allowAll, approval: options.approval ?? denyingApprovalHandler, hooks });
  const [result] = await registry.runCalls([{ id: "c1", name, input }], h.ctx);
  if (result === undefined) throw new Error("no result");
  return result;
}

const events = async () => (await readFile(log, "utf8").catch(() => "")).trim().split("\n").filter(Boolean);

describe("PreToolUse hooks", () => {
  it("deny a matching call with exit 2: the model sees the hook's stderr, not its stdout, and the command never runs", async () => {
    const denied: string[] = [];
    const result = await run(
      "Bash",
      { command: "rm -rf build && touch ran" },
      { PreToolUse: [{ matcher: "Bash", command: denyRm(log) }], onDenied: (tool) => denied.push(tool) },
    );
    expect(result.is_error).toBe(true);
    expect(result.content).toBe("Denied by a PreToolUse hook: rm -rf is not allowed here; delete files one by one");
    await expect(readFile(path.join(h.repo.root, "ran"))).rejects.toThrow();
    expect(denied).toEqual(["Bash"]);
  });

  it("let other calls run, after giving the hook Claude Code's JSON on stdin from the worktree root", async () => {
    const hook = `cat > ${log}.json; pwd >> ${log}`;
    const result = await run("Bash", { command: "echo hello" }, { PreToolUse: [{ matcher: "Bash", command: hook }] });
    expect(result.is_error).toBe(false);
    expect(result.content).toContain("hello");
    expect(JSON.parse(await readFile(`${log}.json`, "utf8"))).toEqual({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "echo hello" },
    });
    expect(await events()).toEqual([h.repo.root]);
  });

  it("apply only to tools whose whole name the matcher matches; an empty matcher matches every tool", async () => {
    const record = (tag: string) => `echo ${tag} >> ${log}`;
    const config = {
      PreToolUse: [
        { matcher: "Bas", command: record("partial") },
        { matcher: "Read|Bash", command: record("alternation") },
        { matcher: "", command: record("all") },
      ],
    };
    await run("Bash", { command: "true" }, config);
    await run("git_status", {}, config);
    expect(await events()).toEqual(["alternation", "all", "all"]);
  });

  it("run after the policy and before approval: a policy denial skips them, a hook denial asks nobody", async () => {
    let asked = 0;
    const approval: ApprovalHandler = {
      request: async () => {
        asked += 1;
        return { approved: true };
      },
    };
    const config = { PreToolUse: [{ matcher: "Bash", command: denyRm(log) }] };
    const policyDenies: PolicyEngine = { check: async () => ({ action: "deny", reason: "blocked command" }), noteOutsideText: () => undefined };
    const refused = await run("Bash", { command: "echo hi" }, config, { policy: policyDenies });
    expect(refused.content).toBe("Denied: blocked command");
    expect(await events()).toEqual([]);

    const asks: PolicyEngine = { check: async () => ({ action: "ask", reason: "it deletes files" }), noteOutsideText: () => undefined };
    const denied = await run("Bash", { command: "rm -rf x" }, config, { policy: asks, approval });
    expect(denied.content).toContain("Denied by a PreToolUse hook");
    expect(asked).toBe(0);

    const approved = await run("Bash", { command: "echo approved" }, config, { policy: asks, approval });
    expect(approved.content).toContain("approved");
    expect(asked).toBe(1);
    expect(await events()).toHaveLength(2);
  });

  it("report other non-zero exits beside the result and do not deny", async () => {
    const result = await run("Bash", { command: "echo still-ran" }, { PreToolUse: [{ matcher: "Bash", command: "echo 'lint server down' >&2; exit 1" }] });
    expect(result.is_error).toBe(false);
    expect(result.content).toContain("still-ran");
    expect(result.content).toContain("[PreToolUse hook `echo 'lint server down' >&2; exit 1` exited 1: lint server down]");
  });

  it("see every call of a hooked tool, never a cached result", async () => {
    await h.repo.write("a.txt", "alpha\n");
    const config = { PreToolUse: [{ matcher: "Read", command: `echo read >> ${log}` }] };
    const hooks = createToolHooks({ PostToolUse: [], ...config });
    const registry = createToolRegistry(coreTools(), { policy: allowAll, approval: denyingApprovalHandler, hooks });
    await registry.runCalls([{ id: "1", name: "Read", input: { file_path: "a.txt" } }], h.ctx);
    const [again] = await registry.runCalls([{ id: "2", name: "Read", input: { file_path: "a.txt" } }], h.ctx);
    expect(again?.content).toContain("alpha");
    expect(await events()).toEqual(["read", "read"]);
  });
});

describe("PostToolUse hooks", () => {
  it("get the call's result as tool_response after it ran; exit 2 appends their stderr to the result", async () => {
    const hook = `cat > ${log}.json; echo 'formatting changed 2 files' >&2; exit 2`;
    const result = await run("Bash", { command: "echo made" }, { PostToolUse: [{ matcher: "Bash", command: hook }] });
    expect(result.is_error).toBe(false);
    expect(result.content).toMatch(/^made\n\[exit code 0\]\n\[PostToolUse hook\] formatting changed 2 files$/);
    const payload = JSON.parse(await readFile(`${log}.json`, "utf8"));
    expect(payload).toEqual({ hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "echo made" }, tool_response: "made\n[exit code 0]" });
  });

  it("leave the result alone on exit 0 and note any other exit", async () => {
    const quiet = await run("Bash", { command: "echo made" }, { PostToolUse: [{ matcher: "", command: "echo chatter; echo noise >&2" }] });
    expect(quiet.content).toBe("made\n[exit code 0]");
    const failing = await run("Bash", { command: "echo made" }, { PostToolUse: [{ matcher: "", command: "exit 7" }] });
    expect(failing.content).toBe("made\n[exit code 0]\n[PostToolUse hook `exit 7` exited 7]");
  });
});
