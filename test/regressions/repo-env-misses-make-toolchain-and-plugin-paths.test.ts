/**
 * Partial (red team of #20, third pass, repository-supplied environment): after two passes,
 * `mcp_servers.<name>.env` still lets through names of the families the list refuses ("where code
 * is loaded from"), each making a process that reads it run or load code the variable names:
 * GNU make's MAKEFILES (makefiles read before the project's own: `$(shell …)` runs on any `make`,
 * confirmed with /usr/bin/make) and MAKEFLAGS (options and variable overrides such as SHELL=),
 * toolchain locations that are `PATH` by another name (JAVA_HOME: `mvn` and `gradlew` run
 * `$JAVA_HOME/bin/java`; GOROOT: `go build` runs `$GOROOT/pkg/tool/…/compile`, the sibling of the
 * refused GOTOOLCHAIN), Gradle's init scripts (GRADLE_USER_HOME/init.d, the sibling of GRADLE_OPTS),
 * Maven 3.9's extra arguments (MAVEN_ARGS, the sibling of MAVEN_OPTS), JRuby's start-up options
 * (JRUBY_OPTS=-r…, the sibling of RUBYOPT), Yarn's own launcher script (YARN_YARN_PATH), the C
 * compiler build tools start (CC, CXX) and its plugin flags (CFLAGS=-fplugin=), CMake's toolchain
 * script (CMAKE_TOOLCHAIN_FILE), shared objects GTK, GIO and Qt load (GTK_MODULES,
 * GIO_EXTRA_MODULES, QT_PLUGIN_PATH), bash's loadable builtins path (BASH_LOADABLES_PATH), the pagers
 * man and systemd start (MANPAGER, SYSTEMD_PAGER), Mercurial's configuration (HGRCPATH: hooks) and
 * the configuration files whose credential helpers run a program (KUBECONFIG exec plugins,
 * AWS_CONFIG_FILE credential_process), OCaml's stub-library path (CAML_LD_LIBRARY_PATH).
 * The repository names the server's command itself, so this gives it nothing beyond its own server;
 * it is the documented rule of the list that fails.
 */
import { describe, expect, it } from "vitest";
import { mcpServerEnvConfig } from "../unit/config/helpers.js";

describe("a repository's env for its MCP servers, third-pass loader and toolchain names", () => {
  it.each([
    "MAKEFILES",
    "MAKEFLAGS",
    "JAVA_HOME",
    "GOROOT",
    "GRADLE_USER_HOME",
    "MAVEN_ARGS",
    "JRUBY_OPTS",
    "YARN_YARN_PATH",
    "CC",
    "CXX",
    "CFLAGS",
    "CMAKE_TOOLCHAIN_FILE",
    "GTK_MODULES",
    "GIO_EXTRA_MODULES",
    "QT_PLUGIN_PATH",
    "BASH_LOADABLES_PATH",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "HGRCPATH",
    "KUBECONFIG",
    "AWS_CONFIG_FILE",
    "CAML_LD_LIBRARY_PATH",
  ])("%s is a config error naming the key", (name) => {
    const parsed = mcpServerEnvConfig({ [name]: "./evil", API_URL: "https://example.com" });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]).toMatch(new RegExp(`^\`mcp_servers\\.tool\\.env\\.${name}\`: .*cannot be set by the repository`));
  });
});
