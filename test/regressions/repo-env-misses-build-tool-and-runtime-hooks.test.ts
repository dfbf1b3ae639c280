/**
 * Partial (red team of #20, second pass, repository-supplied environment): after the first pass's
 * additions, `mcp_servers.<name>.env` still let through names of the families the list refuses
 * ("where code is loaded from"), each of which makes a process run or load code the variable names:
 * Cargo's own spelling of the refused RUSTC_WRAPPER (CARGO_BUILD_RUSTC_WRAPPER), a target runner
 * (CARGO_TARGET_<triple>_RUNNER), rustc's `-C linker=` (RUSTFLAGS), Go's `-toolexec` (GOFLAGS, or a
 * GOENV file holding it) and a downloaded toolchain (GOTOOLCHAIN), Python's warning filter, which
 * imports the module its category names (PYTHONWARNINGS=ignore::evil.C) and where it reads compiled
 * modules from (PYTHONPYCACHEPREFIX), Node's REPL module, Perl's build options (PERL_MB_OPT), Ruby's
 * gem paths and Gemfile, Erlang's extra emulator flags (ERL_AFLAGS=-eval …), R's and Julia's start-up
 * files and load paths, the JVM options the Maven and Gradle scripts pass on (-javaagent), gawk's
 * include and extension (shared object) paths, the shells' function autoload path (FPATH), and the
 * programs others start for a password or a page (SSH_ASKPASS, SUDO_ASKPASS, BROWSER), curl's
 * configuration (CURL_HOME) and wget's (WGETRC). Each is now a config error naming the key.
 */
import { describe, expect, it } from "vitest";
import { mcpServerEnvConfig } from "../unit/config/helpers.js";

describe("a repository's env for its MCP servers, build-tool and runtime hooks the lists missed", () => {
  it.each([
    "CARGO_BUILD_RUSTC_WRAPPER",
    "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER",
    "CARGO_HOME",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "GOFLAGS",
    "GOENV",
    "GOTOOLCHAIN",
    "PYTHONWARNINGS",
    "PYTHONPYCACHEPREFIX",
    "NODE_REPL_EXTERNAL_MODULE",
    "PERL_MB_OPT",
    "PERL_MM_OPT",
    "GEM_PATH",
    "GEM_HOME",
    "BUNDLE_GEMFILE",
    "ERL_AFLAGS",
    "ERL_ZFLAGS",
    "ERL_LIBS",
    "ELIXIR_ERL_OPTIONS",
    "R_PROFILE_USER",
    "R_ENVIRON_USER",
    "R_LIBS_USER",
    "JULIA_LOAD_PATH",
    "JULIA_DEPOT_PATH",
    "MAVEN_OPTS",
    "GRADLE_OPTS",
    "SBT_OPTS",
    "AWKPATH",
    "AWKLIBPATH",
    "FPATH",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "BROWSER",
    "CURL_HOME",
    "WGETRC",
  ])("%s is a config error naming the key", (name) => {
    const parsed = mcpServerEnvConfig({ [name]: "./evil.so", API_URL: "https://example.com" });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]).toMatch(new RegExp(`^\`mcp_servers\\.tool\\.env\\.${name}\`: .*cannot be set by the repository`));
  });

  it("ordinary names of the same look still pass", () => {
    expect(
      mcpServerEnvConfig({
        PYTHONUNBUFFERED: "1",
        PYTHONIOENCODING: "utf-8",
        NODE_ENV: "production",
        GOOGLE_CLOUD_PROJECT: "p",
        RUST_LOG: "debug",
        RUST_BACKTRACE: "1",
        ERLANG_COOKIE_NAME: "x",
        GOPRIVATE_NOTE: "x",
      }).ok,
    ).toBe(true);
  });
});
