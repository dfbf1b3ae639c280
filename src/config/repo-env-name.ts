/**
 * Which environment variable names a repository may set (`mcp_servers.<name>.env`): a plain name
 * for a server's own settings (`GITHUB_TOKEN`, `API_KEY`, `SENTRY_DSN`, `LOG_LEVEL`, `DEBUG`, `TZ`),
 * and none that decides where code is loaded from or what else runs for a process Tackle starts.
 *
 * The rule is by the shape of a name, not by a list of the variables known so far: two passes of
 * such a list kept missing the next one (MAKEFLAGS beside MAKEFILES, GRADLE_USER_HOME beside
 * GRADLE_OPTS, JRUBY_OPTS beside RUBYOPT). A family is refused whole: every name ending in PATH, HOME,
 * PREFIX, OPTS, FLAGS, CONFIG…, in BIN, BINARY, EXE, PROG, RSH… (a program to run), in LIBRARY, LIBDIR,
 * DRIVER, ENGINE… (a library to load), in SCRIPT, START, MODULE, PLUGIN… (code read at start), every
 * name under a tool's own prefix (GIT_, NODE_, PYTHON…), every make and compiler program variable. A
 * shape found missing is added as a kind, never as the name that showed it: CHROME_BIN brought every
 * name ending in BIN, BINARY, EXE, PROG, RSH. What a family would wrongly take is let through by name
 * only (`NODE_ENV`, `PYTHONUNBUFFERED`), so a family's next name is refused, not accepted.
 *
 * A name of a shape no family lists is accepted (GREETING): the rule narrows what a repository's env
 * can steer, it is not the boundary. The boundary is where the env goes: only to the repository's own
 * stdio server, whose command the repository names anyway, in the job's sandbox as the job's user,
 * never to a helper or a root process (src/workspace/launch-privileged.ts).
 *
 * Two endings are weighed, not taken whole:
 * - `DIR` (also DIRECTORY, FOLDER, and NAME, NAMES, LIST, OVERRIDE) qualifies what comes before it, so
 *   the name is judged by that: ACME_MODULE_DIR is refused as MODULE is, LIBVA_DRIVER_NAME as DRIVER is,
 *   and SCHEMA_DIR, DATA_DIR, OUTPUT_DIR stay accepted. A directory is the commonest shape of a server's
 *   data, and it holds code only where a program looks code up in it, which the name says by what the
 *   directory holds (PLUGIN, MODULE, HOOKS, BIN, LIB, SCRIPTS); lists of directories (DIRS) and a tool's
 *   own place (HOME, ROOT, PREFIX) are refused outright. A tool that runs code from a plain `*_DIR`
 *   (PUPPETEER_CACHE_DIR holds the browser Puppeteer starts; TF_PLUGIN_CACHE_DIR, Terraform's providers)
 *   is refused under its own prefix.
 * - `FILE` and `FILES` (so FILENAME, INITFILE, RCFILE, Procfile-like glued names) are refused: whether a
 *   file is data or code is up to its reader, and the name cannot say. Ansible runs its vault password
 *   file when it is executable, coverage.py imports the plugins its COVERAGE_PROCESS_START config names,
 *   AWS's JavaScript and PHP SDKs run a credentials file's credential_process. A data file (LOG_FILE,
 *   KEY_FILE) is passed as an argument in `command` instead. GOOGLE_APPLICATION_CREDENTIALS does not
 *   end in FILE and stays accepted: its one way to run a program (an external account's executable
 *   source) also needs GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES, refused as a program name; AWS_PROFILE
 *   names a profile, not a file.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,100}$/;

interface Family {
  /** Why the family is refused; the error adds the rule that took the name ("every name ending in FLAGS is refused"). */
  readonly why: string;
  /** Whole names. */
  readonly names?: readonly string[];
  /** The name (leading `_` dropped) is this word or starts with it and `_`: `GIT` takes GIT_DIR, not GITHUB_TOKEN. */
  readonly words?: readonly string[];
  /** The name (leading `_` dropped) starts with this, glued: `PYTHON` takes PYTHONPATH. */
  readonly prefixes?: readonly string[];
  /** The name, a trailing version (`_5_4`) dropped, ends with this: `PATH` takes CLASSPATH and LD_LIBRARY_PATH (not an ordinary word that ends so: NOT_THE_ENDING). */
  readonly endings?: readonly string[];
  /** Any `_`-separated word of the name is this: `CC` takes CC, TARGET_CC and CC_x86_64_unknown_linux_gnu. */
  readonly anyWord?: readonly string[];
}

/**
 * Names a family below would take that only carry data (an environment's name, a switch of output
 * buffering or encoding), checked first. Only whole names: a family's next variable stays refused.
 */
const DATA_NAMES = new Set(["NODE_ENV", "MIX_ENV", "PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONDONTWRITEBYTECODE"]);

const FAMILIES: readonly Family[] = [
  {
    why: "the sandbox and Tackle set it themselves",
    names: ["HOME", "USER", "LOGNAME", "TMPDIR", "TMP", "TEMP", "TERM", "LANG", "PWD", "OLDPWD", "SHLVL"],
    words: ["TACKLE"],
  },
  {
    why: "the dynamic loader and libc read it before the program's own code runs (glibc ignores these in setuid programs for the same reason)",
    names: ["GETCONF_DIR", "HOSTALIASES", "LOCALDOMAIN", "RES_OPTIONS", "RESOLV_HOST_CONF", "TZDIR", "LOCPATH", "NLSPATH", "NIS_PATH"],
    words: ["LD", "DYLD", "MALLOC", "GLIBC", "GCONV"],
  },
  {
    why: "a shell reads it at start-up or runs it",
    names: ["ENV", "IFS", "PS1", "PS2", "PS3", "PS4", "GLOBIGNORE", "EXECIGNORE", "FIGNORE", "HOSTFILE", "ZDOTDIR", "FCEDIT"],
    words: ["BASH", "ZSH"],
  },
  {
    why: "it is a search path, where programs, modules, plugins, libraries or configuration are looked up",
    endings: ["PATH", "PATHS", "DIRS", "LIB", "LIBS"],
  },
  {
    why: "it says where a tool, runtime or toolchain lives or keeps its settings, scripts and plugins, and the tool runs what it finds there",
    endings: ["HOME", "ROOT"],
  },
  {
    why: "it is an install prefix, under which a program looks up its own programs, libraries and modules (Mono's assemblies, GTK's modules), or a command put before the ones a tool runs",
    endings: ["PREFIX", "PREFIXES"],
  },
  {
    why: "it holds options or arguments a program adds to its own command line (`-r`, `-javaagent:`, `-fplugin=`, make's `SHELL=`), which choose what else it loads or runs",
    endings: ["OPT", "OPTS", "OPTION", "OPTIONS", "ARGS", "ARGV", "FLAGS"],
    anyWord: ["CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "ARFLAGS"],
  },
  {
    why: "it names code a program loads or runs as it starts (a module, application, backend, loader, handler or class by its import name, a plugin, add-on, preload, hook, init or start-up script, wrapper or toolchain file)",
    endings: [
      "MODULE",
      "MODULES",
      // code by its import name: flask's FLASK_APP, matplotlib's `MPLBACKEND=module://…`, ts-node's TS_NODE_TRANSPILER
      "APP",
      "APPLICATION",
      "BACKEND",
      "BACKENDS",
      "TRANSPILER",
      "LOADER",
      "LOADERS",
      "HANDLER",
      "HANDLERS",
      "CLASS",
      "CLASSES",
      "FACTORY",
      "IMPL",
      "IMPLEMENTATION",
      "REGISTER",
      "EXTENSION",
      "EXTENSIONS",
      "MIDDLEWARE",
      "CALLBACK",
      "CALLBACKS",
      "PLUGIN",
      "PLUGINS",
      "ADDON",
      "ADDONS",
      "PRELOAD",
      "REQUIRE",
      "AUTOLOAD",
      "HOOK",
      "HOOKS",
      "INIT",
      "STARTUP",
      "START",
      "SCRIPT",
      "SCRIPTS",
      "ENTRYPOINT",
      "WRAPPER",
      "TOOLCHAIN",
      "TOOLCHAIN_FILE",
    ],
    anyWord: ["TOOLCHAIN"],
  },
  {
    why: "it names a shared library, driver or engine a program loads into its own process (a Node-API library, an OpenCL, Vulkan or EGL driver, a crypto engine)",
    endings: ["LIBRARY", "LIBRARIES", "LIBDIR", "LIBEXEC", "DLL", "DLLS", "DRIVER", "DRIVERS", "ENGINE", "ENGINES"],
    // the Khronos loaders' Installable Client Drivers: OCL_ICD_FILENAMES, OCL_ICD_VENDORS, VK_ICD_FILENAMES
    anyWord: ["ICD"],
  },
  {
    why: "it names a configuration file or directory, which can name programs to run or libraries to load (credential helpers, exec plugins, hooks, pagers, ODBC drivers)",
    endings: ["CONFIG", "CONF", "CONFIG_FILE", "CONF_FILE", "CONFIG_FILES", "CONFIG_DIR", "CONF_DIR", "RC", "RCFILE", "RC_FILE", "RC_FILES", "INI"],
  },
  {
    why: "it names a file a program reads, and the reader, not the name, decides whether it runs it or what it names (Ansible runs an executable vault password file, coverage.py imports its config's plugins)",
    endings: ["FILE", "FILES"],
  },
  {
    why: "it names a program, binary or remote shell that other programs start on their own (git's editor, man's pager, ssh's askpass, rsync's remote shell, a package's native binary, a test runner)",
    endings: [
      "BIN",
      "BINARY",
      "BINARIES",
      "EXE",
      "PROG",
      "RSH",
      "SSH",
      "INTERPRETER",
      "LAUNCHER",
      "HELPER",
      "HELPERS",
      "PAGER",
      "EDITOR",
      "VISUAL",
      "SHELL",
      "BROWSER",
      "ASKPASS",
      "COMMAND",
      "CMD",
      "PROGRAM",
      "EXECUTABLE",
      "EXECUTABLES",
      "RUNNER",
      "LINKER",
      "COMPILER",
      // a program by its own name: gcloud's CLOUDSDK_PYTHON, protobuf builds' PROTOC, a NODE or RUBY to run
      "PYTHON",
      "PYTHON2",
      "PYTHON3",
      "NODE",
      "NODEJS",
      "DENO",
      "NPX",
      "RUBY",
      "PERL",
      "PHP",
      "JAVA",
      "JAVAC",
      "LUA",
      "LUAJIT",
      "TCLSH",
      "PROTOC",
      "GCC",
      "CLANG",
      "TSC",
      "SWIG",
    ],
  },
  {
    why: "it names a program that make, configure scripts and build scripts start (a compiler, linker, archiver or other build tool)",
    names: [
      "AS",
      "FC",
      "F77",
      "F90",
      "M4",
      "M2C",
      "PC",
      "CO",
      "GET",
      "LEX",
      "FLEX",
      "YACC",
      "BISON",
      "LINT",
      "TEX",
      "TEXI2DVI",
      "MAKEINFO",
      "WEAVE",
      "CWEAVE",
      "TANGLE",
      "CTANGLE",
      "RM",
      "INSTALL",
      "STRIP",
      "OBJCOPY",
      "OBJDUMP",
      "READELF",
      "DLLTOOL",
      "WINDRES",
      "LIBTOOL",
      "AWK",
      "SED",
      "GREP",
      "EGREP",
      "FGREP",
      "MKDIR_P",
      "LN_S",
      "NINJA",
      "MESON",
      "MAKE",
      "MAKELEVEL",
      "MAKEOVERRIDES",
      "MAKECMDGOALS",
      // the kernel's and others' prefix for every tool of a cross toolchain
      "CROSS_COMPILE",
    ],
    anyWord: ["CC", "CXX", "CPP", "LD", "AR", "NM", "RANLIB", "HOSTCC", "HOSTCXX"],
    words: ["CMAKE", "CCACHE", "SCCACHE", "DISTCC", "PKG_CONFIG", "AUTOCONF", "AUTOMAKE"],
    // GNU make's own; MAKE_ is left to others (a MAKE_API_KEY is not make's).
    prefixes: ["MAKEFILE", "GNUMAKE"],
  },
  {
    why: "it is one of a language runtime's, package manager's or tool's own settings, several of which load code, add options or run programs",
    names: ["VIRTUAL_ENV", "STACK_YAML", "VIM", "VIMRUNTIME"],
    words: [
      "GIT",
      "NODE",
      "NPM",
      "YARN",
      "PNPM",
      "BUN",
      "DENO",
      "COREPACK",
      "NVM",
      "VOLTA",
      "FNM",
      "ASDF",
      "MISE",
      "PYENV",
      "RBENV",
      "NODENV",
      "JENV",
      "SDKMAN",
      "PIP",
      "PIPX",
      "UV",
      "POETRY",
      "PIPENV",
      "CONDA",
      "GEM",
      "BUNDLE",
      "JRUBY",
      "JAVA",
      "JDK",
      "MAVEN",
      "M2",
      "GRADLE",
      "SBT",
      "ANT",
      "CARGO",
      "RUSTC",
      "RUSTUP",
      "RUSTDOC",
      "DOTNET",
      "CORECLR",
      "COR",
      "COMPLUS",
      "ERL",
      "ELIXIR",
      "MIX",
      "HEX",
      "REBAR",
      "JULIA",
      "R",
      "CAML",
      "OPAM",
      "CABAL",
      "TCL",
      "TK",
      "GUILE",
      "OPENSSL",
      "DBUS",
      "GTK",
      "GDK",
      "GIO",
      "GST",
      "QT",
      "SYSTEMD",
      "EMACS",
      "ANSIBLE",
      "TF",
      "PUPPETEER",
      "JUPYTER",
      "IPYTHON",
      "CLOUDSDK",
      "TS_NODE",
    ],
    prefixes: ["PYTHON", "PERL", "RUBY", "PHP", "OCAML", "GHC", "LESS", "HG", "KUBE", "MPL"],
  },
];

/** The go command's own variables are one glued word: GOFLAGS, GOROOT, GOTOOLCHAIN, GOPROXY, GOAUTH. */
const GO_VARIABLE = /^GO[A-Z0-9]+$/;
const VERSION_TAIL = /(?:_[0-9]+)+$/;
/** One word glued to DIR: a tool's own place (IPYTHONDIR, TEXMFDIR), not a setting of a server's data (SCHEMA_DIR). */
const GLUED_DIRECTORY = /^[A-Z0-9]+(?:DIR|DIRECTORY)$/;

/**
 * A last word that says which of something the name chooses, or where it is: the name is judged by
 * what comes before it (GDK_PIXBUF_MODULEDIR, ACME_PLUGIN_DIR, LIBVA_DRIVER_NAME, MESA_LOADER_DRIVER_OVERRIDE),
 * so SCHEMA_DIR and DATABASE_NAME are accepted and PLUGIN_DIR is refused.
 */
const QUALIFIER = /^(.+?)(_?(?:DIRECTORY|DIR|FOLDER|NAMES|NAME|LIST|OVERRIDE))$/;

/**
 * Ordinary words that end like a family's ending, by that ending: IMAGE_SRC is not an RC file, AWS_PROFILE
 * names a profile and not a file, a RESTART policy starts nothing, a TRANSCRIPT is not a script, GEMINI no ini.
 */
const NOT_THE_ENDING: Readonly<Record<string, readonly string[]>> = {
  RC: ["SRC"],
  FILE: ["PROFILE"],
  FILES: ["PROFILES"],
  START: ["RESTART"],
  SCRIPT: ["TRANSCRIPT"],
  SCRIPTS: ["TRANSCRIPTS"],
  INI: ["MINI"],
};

/** Why the repository may not set `name`, or undefined when it may. */
export function repoEnvNameProblem(name: string): string | undefined {
  if (!NAME.test(name)) return "a variable name is a letter or _, then up to 100 letters, digits and _";
  const upper = name.toUpperCase();
  if (DATA_NAMES.has(upper)) return undefined;
  const refusal = refusalOf(upper);
  if (refusal === undefined) return undefined;
  const family = refusal.rule === undefined ? "" : `; every name ${refusal.rule} is refused`;
  return `${name} cannot be set by the repository: ${refusal.why}${family}`;
}

/** The family that takes `upper`: why it is refused, and the rule that took it (none for a whole name). */
function refusalOf(upper: string): { why: string; rule?: string } | undefined {
  const bare = upper.replace(/^_+/, "");
  const unversioned = bare.replace(VERSION_TAIL, "");
  const words = bare.split("_").filter((word) => word !== "");
  for (const { why, names, words: heads, prefixes, endings, anyWord } of FAMILIES) {
    if (names?.includes(bare)) return { why };
    const head = heads?.find((w) => bare === w || bare.startsWith(`${w}_`));
    if (head !== undefined) return { why, rule: `starting with ${head}_` };
    const prefix = prefixes?.find((p) => bare.startsWith(p));
    if (prefix !== undefined) return { why, rule: `starting with ${prefix}` };
    const ending = endingOf(unversioned, endings);
    if (ending !== undefined) return { why, rule: `ending in ${ending}` };
    const inside = anyWord?.find((w) => words.includes(w));
    if (inside !== undefined) return { why, rule: `with the word ${inside}` };
  }
  // Only once no family took the whole name: XTABLES_LIBDIR is the library family's LIBDIR, not a LIB search path and DIR.
  const qualified = QUALIFIER.exec(unversioned);
  if (qualified !== null) {
    const [, stem = "", qualifier = ""] = qualified;
    for (const { why, endings } of FAMILIES) {
      const ending = endingOf(stem, endings);
      if (ending !== undefined) return { why, rule: `ending in ${ending}${qualifier}` };
    }
  }
  if (GLUED_DIRECTORY.test(bare)) {
    return {
      why: "it is a tool's own directory, named glued to the tool (IPYTHONDIR, MPLCONFIGDIR), where the tool looks up its start-up files, extensions or kernels",
      rule: "of one word ending in DIR",
    };
  }
  if (GO_VARIABLE.test(bare)) {
    return {
      why: "it is one of the go command's own settings, which choose its toolchain, its module proxy and programs it runs",
      rule: "of GO and one word (GOFLAGS)",
    };
  }
  return undefined;
}

/** The family ending `text` ends in, glued or after `_` (CLASSPATH, LD_LIBRARY_PATH), unless an ordinary word ends there. */
function endingOf(text: string, endings: readonly string[] | undefined): string | undefined {
  return endings?.find((e) => text.endsWith(e) && !NOT_THE_ENDING[e]?.some((word) => text.endsWith(word)));
}
