/**
 * The MCP gateway end to end (issue #12): signed webhook → job → PR, where the repository's
 * `.github/tackle.yml` names an MCP server of the official SDK on a loopback `ip:port` that the operator's
 * TACKLE_FETCH_ALLOW lists, with an Authorization header taken from the operator's TACKLE_SECRET_DOCS,
 * and a stdio server committed in the repository (test/fakes/stdio-mcp-server.mjs as tools/mcp-server.mjs),
 * run in the job's sandbox. The model activates tools, calls them and others through CallMcpTool, sees a
 * stdio server crash, and opens its PR; no process of the server outlives the job.
 */
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { MessagesRequest } from "../../fakes/fake-anthropic.js";
import { startFakeMcpServer } from "../../fakes/fake-mcp-server.js";
import type { ScriptedBlock, ScriptedTurn } from "../../fakes/index.js";
import { processesMatching } from "../workspace/helpers.js";
import { OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { turnIndex } from "./script-helpers.js";
import { assign, botComments, setRepoConfig } from "./trigger-helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SECRET = "docs-secret-0123456789abcdef";
const call = (id: string, name: string, input: unknown): ScriptedBlock => ({ type: "tool_use", id, name, input });
const turn = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });
const finish = (file: string): ScriptedTurn[] => [
  // Write runs with the job paused: the stdio server is stopped around it, and goes on after.
  turn(call("toolu_write", "Write", { file_path: file, content: "What the MCP servers said.\n" })),
  turn(call("toolu_commit", "git_commit", { message: `Add ${file}` })),
  turn(call("toolu_pr", "create_pull_request", { title: `Add ${file}`, body: "From the MCP servers." })),
  turn(call("toolu_done", "task_done", { summary: "Wrote down what the servers said." })),
];
const echoTool = (i: number) => `tool_${String(i).padStart(2, "0")}`;

type Block = { type: string; content?: string; is_error?: boolean };
/** The tool results a request carries back to the model (its last user message). */
const resultsIn = (request: { body: MessagesRequest }): Block[] =>
  ((request.body.messages as Array<{ content: Block[] }>).at(-1)!.content as Block[]).filter((block) => block.type === "tool_result");
const toolNames = (request: { body: MessagesRequest }): string[] => (request.body.tools as Array<{ name: string }>).map((tool) => tool.name);

/** Commits the stdio server (at `tools/mcp-server.mjs` unless said) and the config naming it. */
async function commitStdioServer(h: Harness, config: string, files: Record<string, string> = {}, at = "tools/mcp-server.mjs"): Promise<void> {
  const server = await readFile(path.resolve("test/fakes/stdio-mcp-server.mjs"), "utf8");
  await h.gh.commitFiles(OWNER, REPO, "main", { [at]: server, ".github/tackle.yml": config, ...files }, { message: "An MCP server and its config" });
}

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
      extraEnv: {
        TACKLE_FETCH_ALLOW: server.address,
        TACKLE_SECRET_DOCS: SECRET,
        TACKLE_SECRET_DOCS_REPOS: `${OWNER}/${REPO}`,
        TACKLE_SECRET_DOCS_HOSTS: server.address,
      },
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

  it("runs a stdio server from the checkout in the sandbox beside an HTTP one: 11 activations evict the first, CallMcpTool reaches the rest", async () => {
    const http = await startFakeMcpServer(2);
    cleanups.push(() => http.close());
    const marker = `--marker=${randomUUID()}`;
    const activate = Array.from({ length: 11 }, (_, i) => `local__${echoTool(i + 1)}`);
    const turns: ScriptedTurn[] = [
      turn(call("toolu_load", "LoadMcpTools", { activate })),
      turn(call("toolu_inactive", "CallMcpTool", { tool: "local__tool_12", arguments: { text: "twelve" } })),
      turn(call("toolu_active", "mcp__local__tool_05", { text: "five" })),
      turn(call("toolu_env", "CallMcpTool", { tool: "local__env" })),
      turn(call("toolu_http", "CallMcpTool", { tool: "docs__tool1", arguments: { text: "over http" } })),
      ...finish("MCP.md"),
    ];
    const h = await startHarness({
      script: (request) => turns[Math.min(turnIndex(request), turns.length - 1)]!,
      extraEnv: { TACKLE_FETCH_ALLOW: http.address },
    });
    cleanups.push(() => h.close());
    await commitStdioServer(
      h,
      [
        "mcp_servers:",
        "  local:",
        `    command: ["node", "tools/mcp-server.mjs", "${marker}"]`,
        "    env: { GREETING: from-the-config }",
        "    trusted: true",
        "  docs:",
        `    url: ${http.url}`,
        "    trusted: true",
        "",
      ].join("\n"),
    );
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Write down what the MCP servers say" });

    await assign(h, issue.number);
    await h.app.queue.idle();

    const requests = h.model.requests;
    const loaded = resultsIn(requests[1]!)[0]?.content ?? "";
    expect(loaded).toContain("Activated local__tool_01 (slot 1)");
    expect(loaded).toContain("Activated local__tool_11 (slot 1)");
    expect(loaded).toContain("Evicted local__tool_01, the least recently used of the 10 active tools, to make room.");
    expect(loaded).toContain("- local__crash: Exits with code 7 mid-call. (inputs: none)");
    expect(loaded).toContain("- docs__tool2: Looks up topic 2 in the docs. (inputs: text)");
    expect(loaded).not.toContain("unavailable");
    // Ten activated tools, in slot order: tool_11 took the evicted tool_01's slot 1.
    expect(toolNames(requests[1]!).filter((name) => name.startsWith("mcp__"))).toEqual([
      "mcp__local__tool_11",
      ...Array.from({ length: 9 }, (_, i) => `mcp__local__${echoTool(i + 2)}`),
    ]);
    expect(resultsIn(requests[2]!)[0]?.content).toBe('<mcp_result server="local" tool="tool_12">\ntool_12 got {"text":"twelve"}\n</mcp_result>');
    expect(resultsIn(requests[3]!)[0]?.content).toContain('tool_05 got {"text":"five"}');
    // Its env is the config's; its cwd the job's checkout (where `tools/mcp-server.mjs` was found).
    expect(resultsIn(requests[4]!)[0]?.content).toContain(`GREETING=from-the-config cwd=${path.join(h.home, "checkouts")}/`);
    expect(resultsIn(requests[5]!)[0]?.content).toContain("tool1 says: over http");
    expect(http.calls).toEqual([{ tool: "tool1", text: "over http" }]);

    const tracking = botComments(h, issue.number).find((c) => c.body.includes("tackle:tracking"));
    expect(tracking?.body).toContain("✅ Tackle finished");
    expect(tracking?.body).not.toContain("MCP servers the job could not use");
    expect(tracking?.body).toContain("MCP servers used: `local` (3 calls: `tool_12`, `tool_05`, `env`), `docs` (1 call: `tool1`).");
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(1);
    expect(processesMatching(marker)).toEqual([]);
  });

  it("a stdio server that crashes mid-job: the call says why, later calls say it exited, the job finishes with its PR and the comment names it", async () => {
    const marker = `--marker=${randomUUID()}`;
    const turns: ScriptedTurn[] = [
      turn(call("toolu_before", "CallMcpTool", { tool: "local__tool_02", arguments: { text: "before" } })),
      turn(call("toolu_crash", "CallMcpTool", { tool: "local__crash" })),
      turn(call("toolu_after", "CallMcpTool", { tool: "local__tool_03", arguments: { text: "after" } })),
      turn(call("toolu_list", "LoadMcpTools", {})),
      ...finish("CRASH.md"),
    ];
    const h = await startHarness({ script: (request) => turns[Math.min(turnIndex(request), turns.length - 1)]! });
    cleanups.push(() => h.close());
    // Installed by a setup step into an ignored directory, as `npm ci` would: the server starts after it.
    await commitStdioServer(
      h,
      [
        'setup: ["mkdir -p .mcp && cp vendor/mcp-server.mjs .mcp/server.mjs"]',
        "mcp_servers:",
        "  local:",
        `    command: ["node", ".mcp/server.mjs", "${marker}"]`,
        "    trusted: true",
        "",
      ].join("\n"),
      { ".gitignore": "/.mcp/\n" },
      "vendor/mcp-server.mjs",
    );
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Use the local MCP server" });

    await assign(h, issue.number);
    await h.app.queue.idle();

    const requests = h.model.requests;
    expect(resultsIn(requests[1]!)[0]?.content).toContain('tool_02 got {"text":"before"}');
    const crashed = resultsIn(requests[2]!)[0];
    expect(crashed?.is_error).toBe(true);
    expect(crashed?.content).toBe(
      [
        'MCP server "local" is unavailable: its process exited with code 7 during the call to crash and is not restarted',
        "The last it wrote on stderr:",
        '<mcp_stderr server="local">',
        "fake-stdio-server: ready",
        "fake-stdio-server: crashing on purpose (the crash tool)",
        "</mcp_stderr>",
      ].join("\n"),
    );
    const after = resultsIn(requests[3]!)[0];
    expect(after?.is_error).toBe(true);
    expect(after?.content).toBe('MCP server "local" is unavailable: its process exited with code 7 earlier in this job and is not restarted');
    expect(resultsIn(requests[4]!)[0]?.content).toContain('MCP server "local" is unavailable: its process exited with code 7 mid-job and is not restarted');

    const tracking = botComments(h, issue.number).find((c) => c.body.includes("tackle:tracking"));
    expect(tracking?.body).toContain("✅ Tackle finished");
    expect(tracking?.body).toContain("MCP servers the job could not use:\n- `local`: its process exited with code 7 mid-job and is not restarted");
    expect(h.gh.pulls(OWNER, REPO)).toHaveLength(1);
    expect(processesMatching(marker)).toEqual([]);
  });
});
