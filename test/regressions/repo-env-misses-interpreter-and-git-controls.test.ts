/**
 * Partial (red team of #20, repository-supplied environment): a repository's `mcp_servers.<name>.env`
 * refuses "loader, libc, shell, interpreter and git controls" (docs/security-model.md), and no helper
 * ever sees it (held: they start with a fixed environment, the command's is applied after the drop).
 * But the list missed names of the same families, which reached the server's process (and the bash
 * that sets its limits): where git reads a global configuration whose core.fsmonitor or core.pager it
 * runs (XDG_CONFIG_HOME), shared objects OpenSSL and .NET load (OPENSSL_CONF, OPENSSL_MODULES,
 * CORECLR_PROFILER_PATH), interpreters' start-up code and module paths beside the ones refused
 * (LUA_PATH and LUA_CPATH beside LUA_INIT, LUA_INIT_5_4, PYTHONBREAKPOINT, DOTNET_STARTUP_HOOKS, PHPRC,
 * VIMINIT, ZDOTDIR, npm's settings), and programs others start on their own (EDITOR, LESSOPEN) as
 * PAGER and GIT_EDITOR already are. Each is now a config error naming the key.
 */
import { describe, expect, it } from "vitest";
import { mcpServerEnvConfig } from "../unit/config/helpers.js";

describe("a repository's env for its MCP servers, names the first list missed", () => {
  it.each([
    "XDG_CONFIG_HOME",
    "OPENSSL_CONF",
    "OPENSSL_MODULES",
    "OPENSSL_ENGINES",
    "LUA_PATH",
    "LUA_CPATH",
    "LUA_INIT_5_4",
    "LUA_CPATH_5_4",
    "ZDOTDIR",
    "PYTHONBREAKPOINT",
    "DOTNET_STARTUP_HOOKS",
    "CORECLR_PROFILER_PATH",
    "COR_PROFILER_PATH",
    "PHPRC",
    "PHP_INI_SCAN_DIR",
    "TCLLIBPATH",
    "GUILE_LOAD_PATH",
    "EMACSLOADPATH",
    "VIMINIT",
    "EXINIT",
    "RUSTC_WRAPPER",
    "npm_config_node_options",
    "NPM_CONFIG_SCRIPT_SHELL",
    "EDITOR",
    "VISUAL",
    "LESSOPEN",
  ])("%s is a config error naming the key", (name) => {
    const parsed = mcpServerEnvConfig({ [name]: "./evil.so", API_URL: "https://example.com" });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]).toMatch(new RegExp(`^\`mcp_servers\\.tool\\.env\\.${name}\`: .*cannot be set by the repository`));
  });

  it("ordinary names of the same look still pass", () => {
    expect(
      mcpServerEnvConfig({ NODE_ENV: "production", LUA_VERSION: "5.4", OPENSSLX: "1", XDG_CACHE: "x", EDITOR_THEME: "dark", LANGUAGE_MODEL: "m" }).ok,
    ).toBe(true);
  });
});
