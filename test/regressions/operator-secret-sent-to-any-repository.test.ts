// An operator's TACKLE_SECRET_* went to any repository that named it: a repository of another
// installation put `${TACKLE_SECRET_INFRA_TOKEN}` in an HTTP MCP server's headers, pointing at its own
// server, and the header was sent at session start (tool discovery), with no tool call and no approval.
// Now a secret is filled in only for the repositories its TACKLE_SECRET_<NAME>_REPOS lists and, in a
// header, only toward the hosts its _HOSTS lists (resolveScopedSecrets); anything else is a config
// problem reported on the issue, naming the secret, and no MCP session is opened at all.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeMcpServer } from "../fakes/fake-mcp-server.js";
import type { ScriptedTurn } from "../fakes/index.js";
import { OWNER, REPO, startHarness, type Harness } from "../integration/e2e/harness.js";
import { assign, botComments, setRepoConfig } from "../integration/e2e/trigger-helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SECRET = "infra-token-0123456789abcdef";
const done: ScriptedTurn = {
  content: [{ type: "tool_use", id: "toolu_done", name: "task_done", input: { summary: "Nothing to do." } }],
  stop_reason: "tool_use",
};

async function harness(extraEnv: Record<string, string>): Promise<Harness> {
  const h = await startHarness({ script: () => done, extraEnv: { TACKLE_SECRET_INFRA_TOKEN: SECRET, ...extraEnv } });
  cleanups.push(() => h.close());
  return h;
}

const httpConfig = (url: string) =>
  `mcp_servers:\n  mine:\n    url: ${url}\n    headers:\n      Authorization: "Bearer \${TACKLE_SECRET_INFRA_TOKEN}"\n    trusted: true\n`;

/** Runs one job on a new issue and returns the bot's comments on it. */
async function runJob(h: Harness): Promise<string> {
  const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Use my MCP server" });
  await assign(h, issue.number);
  await h.app.queue.idle();
  return botComments(h, issue.number)
    .map((comment) => comment.body)
    .join("\n---\n");
}

/** A server on loopback that records every request's headers and answers each with a redirect to `to`. */
async function startRedirector(to: string): Promise<{ address: string; url: string; headers: http.IncomingHttpHeaders[]; close(): Promise<void> }> {
  const headers: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((request, response) => {
    headers.push(request.headers);
    request.resume();
    response.writeHead(307, { location: to }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/mcp`,
    headers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("an operator secret named by a repository it is not scoped to", () => {
  it("is not sent in an HTTP MCP header to the repository's own server: the job stops with a config problem naming it", async () => {
    const server = await startFakeMcpServer(1);
    cleanups.push(() => server.close());
    // The operator meant the token for its own infrastructure repositories, on its own host.
    const h = await harness({
      TACKLE_FETCH_ALLOW: server.address,
      TACKLE_SECRET_INFRA_TOKEN_REPOS: "infra/*",
      TACKLE_SECRET_INFRA_TOKEN_HOSTS: server.address,
    });
    await setRepoConfig(h, httpConfig(server.url));

    const comments = await runJob(h);

    expect(server.headers).toEqual([]);
    expect(comments).toContain("`mcp_servers.mine.headers.Authorization` names `TACKLE_SECRET_INFRA_TOKEN`, which is not available to octo/widgets");
    expect(comments).toContain("TACKLE_SECRET_INFRA_TOKEN_REPOS");
    expect(h.model.requests).toHaveLength(0);
    expect(comments).not.toContain(SECRET);
  });

  it("fails closed when the operator set no _REPOS at all", async () => {
    const server = await startFakeMcpServer(1);
    cleanups.push(() => server.close());
    const h = await harness({ TACKLE_FETCH_ALLOW: server.address });
    await setRepoConfig(h, httpConfig(server.url));

    const comments = await runJob(h);

    expect(server.headers).toEqual([]);
    expect(comments).toContain("names `TACKLE_SECRET_INFRA_TOKEN`, which is not available to octo/widgets");
  });

  it("is not put in a stdio server's env", async () => {
    const h = await harness({ TACKLE_SECRET_INFRA_TOKEN_REPOS: "infra/tools" });
    const server = await readFile(path.resolve("test/fakes/stdio-mcp-server.mjs"), "utf8");
    await h.gh.commitFiles(
      OWNER,
      REPO,
      "main",
      {
        "tools/mcp-server.mjs": server,
        ".github/tackle.yml": 'mcp_servers:\n  local:\n    command: ["node", "tools/mcp-server.mjs"]\n    env: { TOKEN: "${TACKLE_SECRET_INFRA_TOKEN}" }\n',
      },
      { message: "A stdio server" },
    );

    const comments = await runJob(h);

    expect(comments).toContain("`mcp_servers.local.env.TOKEN` names `TACKLE_SECRET_INFRA_TOKEN`, which is not available to octo/widgets");
    // The job never started: no model turn, so no discovery and no server process.
    expect(h.model.requests).toHaveLength(0);
  });

  it("is not sent to a host its _HOSTS does not list, even for a repository in scope (owner/*)", async () => {
    const server = await startFakeMcpServer(1);
    cleanups.push(() => server.close());
    const h = await harness({
      TACKLE_FETCH_ALLOW: server.address,
      TACKLE_SECRET_INFRA_TOKEN_REPOS: "OCTO/*",
      TACKLE_SECRET_INFRA_TOKEN_HOSTS: "mcp.example.com",
    });
    await setRepoConfig(h, httpConfig(server.url));

    const comments = await runJob(h);

    expect(server.headers).toEqual([]);
    expect(comments).toContain(
      `names \`TACKLE_SECRET_INFRA_TOKEN\`, which may not be sent to ${server.address}: that host is not in \`TACKLE_SECRET_INFRA_TOKEN_HOSTS\``,
    );
  });

  it("in scope (owner/* and the server's ip:port), is sent to that server and to no other it redirects to", async () => {
    const target = await startFakeMcpServer(1);
    cleanups.push(() => target.close());
    const redirector = await startRedirector(target.url);
    cleanups.push(() => redirector.close());
    const h = await harness({
      TACKLE_FETCH_ALLOW: `${redirector.address},${target.address}`,
      TACKLE_SECRET_INFRA_TOKEN_REPOS: "octo/*",
      TACKLE_SECRET_INFRA_TOKEN_HOSTS: redirector.address,
    });
    await setRepoConfig(h, httpConfig(redirector.url));

    const comments = await runJob(h);

    expect(redirector.headers.length).toBeGreaterThan(0);
    expect(redirector.headers.every((headers) => headers.authorization === `Bearer ${SECRET}`)).toBe(true);
    // The redirect to another origin is not followed: the other server never hears from the job.
    expect(target.headers).toEqual([]);
    expect(comments).toContain("Tackle finished");
    expect(comments).not.toContain(SECRET);
  });
});
