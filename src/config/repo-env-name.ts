/**
 * Which environment variable names a repository may set (`mcp_servers.<name>.env`): a plain name,
 * and none that steers the dynamic loader, libc, a shell, an interpreter or git before the program's
 * own code runs, nor the sandbox's own variables. Deny by default for those families: what they
 * change is where code is loaded from, which is not the repository's to decide for a process Tackle
 * starts.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,100}$/;

/** Exact names (compared in upper case). */
const DENIED = new Set([
  // the sandbox's own, and where programs are found
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TMPDIR",
  "TERM",
  "LANG",
  "PAGER",
  // programs other programs start on their own (git commit's editor, less's input filter)
  "EDITOR",
  "VISUAL",
  "LESSOPEN",
  "LESSCLOSE",
  // where git reads a global configuration (core.fsmonitor, core.pager… run programs)
  "XDG_CONFIG_HOME",
  // shells
  "BASH_ENV",
  "ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "IFS",
  "CDPATH",
  "GLOBIGNORE",
  "PROMPT_COMMAND",
  "EXECIGNORE",
  "INPUTRC",
  "ZDOTDIR",
  // libc (glibc drops these for setuid programs for the same reason)
  "GCONV_PATH",
  "GETCONF_DIR",
  "GLIBC_TUNABLES",
  "HOSTALIASES",
  "LOCALDOMAIN",
  "LOCPATH",
  "NIS_PATH",
  "NLSPATH",
  "RESOLV_HOST_CONF",
  "RES_OPTIONS",
  "TZDIR",
  // interpreters' start-up code and module paths
  "NODE_OPTIONS",
  "NODE_PATH",
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PYTHONHOME",
  "PYTHONINSPECT",
  "PYTHONUSERBASE",
  "PERL5OPT",
  "PERL5LIB",
  "PERLLIB",
  "PERL5DB",
  "RUBYOPT",
  "RUBYLIB",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "CLASSPATH",
  "PYTHONBREAKPOINT",
  "DOTNET_STARTUP_HOOKS",
  "PHPRC",
  "PHP_INI_SCAN_DIR",
  "TCLLIBPATH",
  "GUILE_LOAD_PATH",
  "EMACSLOADPATH",
  "VIMINIT",
  "EXINIT",
  "RUSTC_WRAPPER",
  "RUSTC_WORKSPACE_WRAPPER",
  "PYTHONWARNINGS",
  "PYTHONPYCACHEPREFIX",
  "PYTHONPLATLIBDIR",
  "NODE_REPL_EXTERNAL_MODULE",
  "GEM_PATH",
  "GEM_HOME",
  "BUNDLE_GEMFILE",
  "RUBYSHELL",
  "ELIXIR_ERL_OPTIONS",
  "JULIA_LOAD_PATH",
  "JULIA_DEPOT_PATH",
  "AWKPATH",
  "AWKLIBPATH",
  "FPATH",
  // build tools' own hooks: a wrapper, a linker, a runner, a toolchain, a JVM agent
  "RUSTFLAGS",
  "RUSTDOCFLAGS",
  "GOFLAGS",
  "GOENV",
  "GOTOOLCHAIN",
  "MAVEN_OPTS",
  "GRADLE_OPTS",
  "SBT_OPTS",
  "ANT_OPTS",
  // programs others start on their own, and configuration files that name one
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
  "BROWSER",
  "CURL_HOME",
  "WGETRC",
]);

/** Whole families, by prefix (compared in upper case). */
const DENIED_PREFIXES = [
  "LD_",
  "DYLD_",
  "MALLOC_",
  "GIT_",
  "BASH_FUNC_",
  "TACKLE_",
  // OpenSSL loads engines and providers (shared objects) named by its configuration
  "OPENSSL_",
  // Lua's start-up chunk and module paths, versioned too (LUA_INIT_5_4, LUA_CPATH_5_4)
  "LUA_INIT",
  "LUA_PATH",
  "LUA_CPATH",
  // .NET's profilers are shared objects the runtime loads
  "CORECLR_",
  "COR_PROFILER",
  // npm's settings, node_options and script_shell among them
  "NPM_CONFIG_",
  // Cargo's settings (its own spelling of RUSTC_WRAPPER, target runners, CARGO_HOME's config)
  "CARGO_",
  // Perl's start-up and build options (PERL5OPT, PERL5LIB, PERL_MB_OPT, PERLDB_OPTS…)
  "PERL",
  // Erlang's extra emulator flags (-eval) and library path
  "ERL_",
  // R's start-up files and library paths
  "R_PROFILE",
  "R_ENVIRON",
  "R_LIBS",
];

/** Why the repository may not set `name`, or undefined when it may. */
export function repoEnvNameProblem(name: string): string | undefined {
  if (!NAME.test(name)) return "a variable name is a letter or _, then up to 100 letters, digits and _";
  const upper = name.toUpperCase();
  const prefix = DENIED_PREFIXES.find((p) => upper.startsWith(p));
  if (DENIED.has(upper) || prefix !== undefined) {
    const what = prefix === undefined ? name : `${prefix}*`;
    return `${what} cannot be set by the repository: it controls how programs are loaded or run (the dynamic loader, libc, a shell, an interpreter, git or the sandbox itself), not what they do`;
  }
  return undefined;
}
