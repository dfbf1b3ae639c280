/**
 * Partial (red team of #20, fifth pass, repository-supplied environment): the rule by families
 * (src/config/repo-env-name.ts) accepted any name no family listed, and each pass found the next
 * variable that makes a process load or run what it names: gcloud's interpreter (CLOUDSDK_PYTHON),
 * protobuf builds' compiler (PROTOC), the application module flask imports (FLASK_APP), matplotlib's
 * backend (`MPLBACKEND=module://evil`), ts-node's transpiler module (TS_NODE_TRANSPILER), IPython's
 * and Jupyter's directories of start-up files and kernels (IPYTHONDIR, JUPYTER_DATA_DIR).
 * As in the earlier passes, the repository names the server's command itself and the environment
 * reaches only that process (repo-env-reaches-root-helper.test.ts); it is the documented rule that
 * failed. Each shape is now a kind of its family, not a name: a program by its own name (endings PYTHON,
 * NODE, PROTOC…), code by its import name (APP, BACKEND, TRANSPILER, LOADER, CLASS…), a tool's directory
 * glued to its name (one word ending in DIR), and the prefixes JUPYTER_, IPYTHON_, CLOUDSDK_, TS_NODE_, MPL.
 */
import { describe, expect, it } from "vitest";
import { mcpServerEnvConfig } from "../unit/config/helpers.js";

describe("a repository's env for its MCP servers, fifth-pass names of no listed shape", () => {
  it.each(["CLOUDSDK_PYTHON", "PROTOC", "FLASK_APP", "MPLBACKEND", "TS_NODE_TRANSPILER", "IPYTHONDIR", "JUPYTER_DATA_DIR"])(
    "%s is a config error naming the key",
    (name) => {
      const parsed = mcpServerEnvConfig({ [name]: "./evil", API_URL: "https://example.com" });
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.problems).toHaveLength(1);
      expect(parsed.problems[0]).toMatch(new RegExp(`^\`mcp_servers\\.tool\\.env\\.${name}\`: .*cannot be set by the repository`));
    },
  );

  it("the settings MCP servers are commonly given still pass", () => {
    const parsed = mcpServerEnvConfig({
      GITHUB_PERSONAL_ACCESS_TOKEN: "x",
      GITHUB_TOOLSETS: "repos,issues",
      GITHUB_READ_ONLY: "1",
      BRAVE_API_KEY: "x",
      SLACK_TEAM_ID: "T1",
      SLACK_CHANNEL_IDS: "C1,C2",
      SENTRY_HOST: "sentry.example.com",
      POSTGRES_CONNECTION_STRING: "postgres://db",
      JIRA_USERNAME: "me",
      CONFLUENCE_SPACES_FILTER: "DEV",
      FASTMCP_LOG_LEVEL: "INFO",
      MAX_RESULTS: "20",
      REQUEST_TIMEOUT_MS: "5000",
      NO_COLOR: "1",
    });
    expect(parsed).toMatchObject({ ok: true });
  });
});
