/**
 * Partial (red team of #20, fourth pass, repository-supplied environment): the rule by shape
 * (src/config/repo-env-name.ts) still accepts names whose shape it does not list, each making a process
 * that reads it run or load code the variable names: rsync's remote shell and daemon connector
 * (RSYNC_RSH, RSYNC_CONNECT_PROG: `rsync host:x y` and `rsync rsync://host/m/x y` run the named
 * program, confirmed with /usr/bin/rsync), CVS's remote shell (CVS_RSH), programs and libraries npm
 * packages start or load by a `_BIN`/`_BINARY`/`_LIBRARY` variable (CHROME_BIN for karma's launchers,
 * BIOME_BINARY for @biomejs/biome's wrapper, PRISMA_SCHEMA_ENGINE_BINARY and the Node-API library
 * PRISMA_QUERY_ENGINE_LIBRARY that @prisma/client dlopens), the ICD loaders' driver lists (OCL_ICD_FILENAMES,
 * VK_ICD_FILENAMES, VK_DRIVER_FILES, __EGL_VENDOR_LIBRARY_FILENAMES: shared objects by path), Ansible's
 * module library and its vault password file (run when executable), coverage.py's start-up hook
 * (COVERAGE_PROCESS_START: a config whose `[run] plugins` are imported by every Python process),
 * Mono's assembly prefix (MONO_GAC_PREFIX), Octave's site init file (OCTAVE_SITE_INITFILE) and
 * iptables' extension directory (XTABLES_LIBDIR). The endings `BIN`, `BINARY`, `LIBRARY`, `FILENAMES`,
 * `RSH`, `PROG`, `INITFILE`, `LIBDIR`, `PREFIX` and `START` are not families of the rule.
 * The repository names the server's command itself, and the environment reaches only that process and
 * what it starts (no helper, no host process: repo-env-reaches-root-helper.test.ts), so this gives it
 * nothing beyond its own server; it is the documented rule ("every name whose shape says it steers how
 * a program is loaded or run") that fails.
 */
import { describe, expect, it } from "vitest";
import { mcpServerEnvConfig } from "../unit/config/helpers.js";

describe("a repository's env for its MCP servers, fourth-pass program and library names", () => {
  it.each([
    "RSYNC_RSH",
    "RSYNC_CONNECT_PROG",
    "CVS_RSH",
    "CHROME_BIN",
    "BIOME_BINARY",
    "PRISMA_SCHEMA_ENGINE_BINARY",
    "PRISMA_QUERY_ENGINE_LIBRARY",
    "OCL_ICD_FILENAMES",
    "VK_ICD_FILENAMES",
    "VK_DRIVER_FILES",
    "__EGL_VENDOR_LIBRARY_FILENAMES",
    "ANSIBLE_LIBRARY",
    "ANSIBLE_VAULT_PASSWORD_FILE",
    "COVERAGE_PROCESS_START",
    "MONO_GAC_PREFIX",
    "OCTAVE_SITE_INITFILE",
    "XTABLES_LIBDIR",
  ])("%s is a config error naming the key", (name) => {
    const parsed = mcpServerEnvConfig({ [name]: "./evil", API_URL: "https://example.com" });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]).toMatch(new RegExp(`^\`mcp_servers\\.tool\\.env\\.${name}\`: .*cannot be set by the repository`));
  });
});
