import { describe, expect, it } from "vitest";
import { buildJobTools } from "../../../src/agent/build-job-tools.js";
import { NO_REPO_EXTENSIONS } from "../../../src/config/repo-extensions.js";

const BACKGROUND = ["JobList", "JobOutput", "JobStop", "Monitor"];

describe("buildJobTools", () => {
  const input = { repo: "octo/widgets", branch: "tackle/issue-1", extensions: NO_REPO_EXTENSIONS, web: false, memory: false, mcp: false };

  it("offers the background-command tools to the job's own agent, last, and to no subagent", () => {
    const tools = buildJobTools({ ...input, background: true });
    expect(tools.main.map((tool) => tool.name).slice(-4)).toEqual(BACKGROUND);
    expect([...tools.subagentTools.keys()].filter((name) => BACKGROUND.includes(name))).toEqual([]);
    for (const type of tools.types) expect(type.tools.filter((name) => BACKGROUND.includes(name))).toEqual([]);
  });

  it("offers none of them where the sandbox cannot hold a process between calls", () => {
    const names = buildJobTools({ ...input, background: false }).main.map((tool) => tool.name);
    expect(names.filter((name) => BACKGROUND.includes(name))).toEqual([]);
  });
});
