/**
 * The MCP gateway end to end (issue #12, HTTP servers): signed webhook → job → PR, where the repository's
 * `.github/tackle.yml` names an MCP server of the official SDK on a loopback `ip:port` that the operator's
 * TACKLE_FETCH_ALLOW lists, with an Authorization header taken from the operator's TACKLE_SECRET_DOCS.
 * The model activates one tool, calls it, calls another through CallMcpTool, and opens its PR.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeMcpServer } from "../../fakes/fake-mcp-server.js";
import type { ScriptedBlock, ScriptedTurn } from "../../fakes/index.js";
import { OWNER, REPO, startHarness } from "./harness.js";
import { turnIndex } from "./script-helpers.js";
import { assign, botComments, setRepoConfig } from "./trigger-helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SECRET = "docs-secret-0123456789abcdef";
const call = (id: string, name: string, input: unknown): ScriptedBlock => ({ type: "tool_use", id, name, input });
const turn = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });

describe("MCP servers, end to end", () => {
  it("uses a repository's HTTP MCP server opened by ip:port, with the operator's secret header, and opens the PR", async () => {
    const server = await startFakeMcpServer(3);
    cleanups.push(() => server.close());
    const turns: ScriptedTurn[] = [
      turn(call("toolu_load", "LoadMcpTools", { query: "topic", activate: ["docs__tool2"] })),
      turn(call("toolu_active", "mcp__docs__tool2", { text: "retries" })),
      turn(call("toolu_other", "CallMcpTool", { tool: "docs__tool3", arguments: { text: "limits" } })),
      turn(call("toolu_write", "Write", { file_path: "NOTES.md", content: "Retries and limits are documented.\n" })),
      turn(call("toolu_commit", "git_commit", { message: "Note the docs" })),
      turn(call("toolu_pr", "create_pull_request", { title: "Note the docs", body: "From the docs server." })),
      turn(call("toolu_done", "task_done", { summary: "Noted what the docs say." })),
    ];
    const h = await startHarness({
      script: (request) => turns[Math.min(turnIndex(request), turns.length - 1)]!,
      extraEnv: { TACKLE_FETCH_ALLOW: server.address, TACKLE_SECRET_DOCS: SECRET },
    });
    cleanups.push(() => h.close());
    await setRepoConfig(
      h,
      `mcp_servers:\n  docs:\n    url: ${server.url}\n    headers:\n      Authorization: "Bearer \${TACKLE_SECRET_DOCS}"\n    trusted: true\n`,
    );
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Write down what the docs say" });

    await assign(h, issue.number);
    await h.app.queue.idle();

    expect(server.calls).toEqual([
      { tool: "tool2", text: "retries" },
      { tool: "tool3", text: "limits" },
    ]);
    expect(server.headers.length).toBeGreaterThan(0);
    expect(server.headers.every((headers) => headers.authorization === `Bearer ${SECRET}`)).toBe(true);
    const requests = h.model.requests.map((request) => JSON.stringify(request.body));
    expect(requests[1]).toContain('"name":"mcp__docs__tool2"');
    expect(requests[2]).toContain("tool2 says: retries");
    expect(requests[3]).toContain("tool3 says: limits");
    const tracking = botComments(h, issue.number).find((c) => c.body.includes("tackle:tracking"));
    expect(tracking?.body).toContain("✅ Tackle finished");
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(1);
    // The operator's secret reached the server's header only: not the model, not the transcript, not GitHub.
    expect(requests.join("")).not.toContain(SECRET);
    const transcripts = path.join(h.home, "transcripts");
    const files = await readdir(transcripts);
    expect(files).toHaveLength(1);
    const transcript = await readFile(path.join(transcripts, files[0]!), "utf8");
    expect(transcript).toContain("tool2 says: retries");
    expect(transcript).not.toContain(SECRET);
    expect(JSON.stringify(h.gh.comments(OWNER, REPO, issue.number))).not.toContain(SECRET);
  });
});
