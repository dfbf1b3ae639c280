import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../../src/config/index.js";
import { repoEnvNameProblem } from "../../../src/config/repo-env-name.js";

/** Each family by the shape that takes it, with names the earlier lists never held. */
const REFUSED: ReadonlyArray<[family: string, names: string[]]> = [
  ["the sandbox's own", ["HOME", "USER", "LOGNAME", "TMPDIR", "TERM", "LANG", "TACKLE_HOOKS_DIR", "TACKLE"]],
  ["the loader and libc", ["LD_PRELOAD", "ld_audit", "DYLD_INSERT_LIBRARIES", "MALLOC_CHECK_", "GLIBC_TUNABLES", "GCONV_PATH", "HOSTALIASES", "TZDIR"]],
  ["shells", ["BASH_ENV", "BASH_FUNC_x", "BASH_XTRACEFD", "ENV", "PS4", "IFS", "ZDOTDIR", "ZSH_CUSTOM", "FCEDIT"]],
  [
    "... PATH, PATHS, DIRS, LIB, LIBS",
    ["PATH", "CLASSPATH", "QT_PLUGIN_PATH", "PKG_CONFIG_PATH", "MANPATH", "XDG_DATA_DIRS", "PERL5LIB", "R_LIBS", "LUA_CPATH_5_4", "_SOME_TOOL_PATH"],
  ],
  ["... HOME, ROOT", ["JAVA_HOME", "GRADLE_USER_HOME", "GNUPGHOME", "XDG_CONFIG_HOME", "GOROOT", "DOTNET_ROOT", "ANDROID_SDK_ROOT", "SDKROOT", "VCPKG_ROOT"]],
  ["... PREFIX", ["PREFIX", "MONO_GAC_PREFIX", "GTK_EXE_PREFIX", "ACME_INSTALL_PREFIXES"]],
  [
    "... OPT(S), OPTION(S), ARGS, FLAGS",
    ["RUBYOPT", "JRUBY_OPTS", "_JAVA_OPTIONS", "MAVEN_ARGS", "MAKEFLAGS", "CFLAGS", "LDFLAGS", "CFLAGS_x86_64_unknown_linux_gnu", "BINDGEN_EXTRA_CLANG_ARGS"],
  ],
  [
    "code loaded at start",
    [
      "GTK_MODULES",
      "GIO_EXTRA_MODULES",
      "NODE_REPL_EXTERNAL_MODULE",
      "GST_PLUGINS",
      "SOME_PLUGIN",
      "JEMALLOC_PRELOAD",
      "DOTNET_STARTUP_HOOKS",
      "LUA_INIT_5_4",
      "VIMINIT",
      "PYTHONSTARTUP",
      "RUSTC_WRAPPER",
      "CMAKE_TOOLCHAIN_FILE",
      "MY_TOOLCHAIN",
      "COVERAGE_PROCESS_START",
      "AUTOSTART",
      "ACME_SCRIPT",
      "POSTINSTALL_SCRIPTS",
      "DOCKER_ENTRYPOINT",
      "FIREFOX_ADDONS",
      "ACME_REQUIRE",
      "ACME_AUTOLOAD",
    ],
  ],
  [
    "... LIBRARY, LIBDIR, LIBEXEC, DLL, DRIVER(S), ENGINE(S), the word ICD",
    [
      "PRISMA_QUERY_ENGINE_LIBRARY",
      "ANSIBLE_LIBRARY",
      "SDL_OPENGL_LIBRARY",
      "ACME_LIBRARIES",
      "XTABLES_LIBDIR",
      "ACME_LIBEXEC",
      "ACME_DLL",
      "JDBC_DRIVER",
      "LIBGL_DRIVERS",
      "OPENSSL_ENGINES",
      "OCR_ENGINE",
      "OCL_ICD_VENDORS",
      "ICD",
    ],
  ],
  [
    "configuration files",
    [
      "KUBECONFIG",
      "AWS_CONFIG_FILE",
      "DOCKER_CONFIG",
      "OPENSSL_CONF",
      "RESOLV_HOST_CONF",
      "WGETRC",
      "INPUTRC",
      "GTK2_RC_FILES",
      "BOTO_CONFIG",
      "ODBCINI",
      "ODBCSYSINI",
    ],
  ],
  [
    "... FILE, FILES (glued too)",
    [
      "ANSIBLE_VAULT_PASSWORD_FILE",
      "OCTAVE_SITE_INITFILE",
      "VK_DRIVER_FILES",
      "GTK_IM_MODULE_FILE",
      "AWS_SHARED_CREDENTIALS_FILE",
      "HISTFILE",
      "PROCFILE",
      "LOG_FILE",
    ],
  ],
  [
    "programs started by others",
    [
      "PAGER",
      "MANPAGER",
      "SYSTEMD_PAGER",
      "EDITOR",
      "VISUAL",
      "SHELL",
      "RUBYSHELL",
      "BROWSER",
      "SSH_ASKPASS",
      "PROMPT_COMMAND",
      "GIT_SSH_COMMAND",
      "PYTHONEXECUTABLE",
      "GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES",
      "TEST_RUNNER",
      "CHROME_BIN",
      "SBIN",
      "BIOME_BINARY",
      "PRISMA_SCHEMA_ENGINE_BINARY",
      "ACME_BINARIES",
      "ANSIBLE_BECOME_EXE",
      "RSYNC_CONNECT_PROG",
      "RSYNC_RSH",
      "CVS_RSH",
      "RSYNC_SSH",
      "R_INTERPRETER",
      "TEST_LAUNCHER",
      "CREDENTIAL_HELPER",
    ],
  ],
  [
    "a directory, name, list or override of a refused kind",
    [
      "ACME_MODULE_DIR",
      "GDK_PIXBUF_MODULEDIR",
      "ACME_PLUGINS_DIRECTORY",
      "ACME_HOOKS_FOLDER",
      "BINDIR",
      "ACME_SCRIPTS_DIR",
      "HOME_DIR",
      "LIBVA_DRIVER_NAME",
      "__GLX_VENDOR_LIBRARY_NAME",
      "MESA_LOADER_DRIVER_OVERRIDE",
      "ACME_PLUGIN_LIST",
      "OCL_ICD_FILENAMES",
      "__EGL_VENDOR_LIBRARY_FILENAMES",
      "ACME_FILENAME",
    ],
  ],
  [
    "make and the compilers",
    [
      "CC",
      "CXX",
      "CPP",
      "LD",
      "AR",
      "AS",
      "NM",
      "RANLIB",
      "STRIP",
      "YACC",
      "RM",
      "TARGET_CC",
      "CC_x86_64_unknown_linux_gnu",
      "MAKE",
      "MAKEFILES",
      "MAKELEVEL",
      "GNUMAKEFLAGS",
      "CROSS_COMPILE",
      "CCACHE_PREFIX",
      "CMAKE_C_COMPILER_LAUNCHER",
    ],
  ],
  [
    "tools' own settings",
    [
      "GIT_DIR",
      "NODE_OPTIONS",
      "NODE_EXTRA_CA_CERTS",
      "npm_config_script_shell",
      "YARN_YARN_PATH",
      "COREPACK_NPM_REGISTRY",
      "PYTHONSAFEPATH",
      "PERL5DB",
      "RUBYLIB",
      "PHPRC",
      "VIRTUAL_ENV",
      "UV_PYTHON",
      "PIP_INDEX_URL",
      "BUNDLE_GEMFILE",
      "JAVA_TOOL_OPTIONS",
      "CARGO_TARGET_DIR",
      "MIX_EXS",
      "ERL_LIBS",
      "OCAMLPARAM",
      "HGMERGE",
      "LESSOPEN",
      "DBUS_SESSION_BUS_ADDRESS",
      "GOFLAGS",
      "GOAUTH",
      "GOPROXY",
      "GO111MODULE",
      "ANSIBLE_INVENTORY",
      "ANSIBLE_VAULT_IDENTITY_LIST",
      "TF_DATA_DIR",
      "TF_PLUGIN_CACHE_DIR",
      "PUPPETEER_CACHE_DIR",
    ],
  ],
];

/** What MCP servers are really given, and look-alikes of refused families that carry data only. */
const ACCEPTED = [
  "GITHUB_TOKEN",
  "GITHUB_PERSONAL_ACCESS_TOKEN",
  "GITLAB_TOKEN",
  "API_KEY",
  "ANTHROPIC_API_KEY",
  "SENTRY_DSN",
  "LOG_LEVEL",
  "DEBUG",
  "MY_SERVER_URL",
  "DATABASE_URL",
  "POSTGRES_CONNECTION_STRING",
  "SLACK_TEAM_ID",
  "AWS_REGION",
  "AWS_PROFILE",
  "GOOGLE_CLOUD_PROJECT",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "HTTPS_PROXY",
  "TZ",
  "LC_ALL",
  "LANGUAGE",
  "SCHEMA_DIR",
  "DATA_DIR",
  "OUTPUT_DIR",
  "CACHE_DIR",
  "ALLOWED_DIRECTORIES",
  "IMAGE_SRC",
  "IMAGE_SRC_DIR",
  "DATABASE_NAME",
  "BUCKET_NAME",
  "HOSTNAME",
  "USERNAME",
  "ALLOW_LIST",
  "ZOTERO_LIBRARY_ID",
  "SLACK_BOT_TOKEN",
  "STRIPE_SECRET_KEY",
  "AZURE_OPENAI_ENDPOINT",
  "GEMINI_API_KEY",
  // look-alikes of the endings: a profile is no file, a restart policy starts nothing, a transcript is no script
  "AWS_PROFILE_NAME",
  "SPRING_PROFILES",
  "RESTART_POLICY",
  "AUTO_RESTART",
  "TRANSCRIPTS_DIR",
  "USE_GEMINI",
  "EDITOR_THEME",
  "MAKE_API_KEY",
  "PERPLEXITY_API_KEY",
  "VIMEO_TOKEN",
  "LUA_VERSION",
  "RUST_LOG",
  "GOPRIVATE_NOTE",
  "my_setting",
  // data in a refused family, let through by name
  "NODE_ENV",
  "MIX_ENV",
  "PYTHONUNBUFFERED",
  "PYTHONIOENCODING",
  "PYTHONUTF8",
  "PYTHONDONTWRITEBYTECODE",
];

describe("repoEnvNameProblem: refused by the shape of the name", () => {
  for (const [family, names] of REFUSED) {
    it.each(names)(`${family}: %s`, (name) => {
      expect(repoEnvNameProblem(name)).toMatch(new RegExp(`^${name} cannot be set by the repository: `));
    });
  }

  it.each(ACCEPTED)("accepts %s", (name) => {
    expect(repoEnvNameProblem(name)).toBeUndefined();
  });

  it("says which family took a name and why", () => {
    expect(repoEnvNameProblem("MAKEFLAGS")).toBe(
      "MAKEFLAGS cannot be set by the repository: it holds options or arguments a program adds to its own command line (`-r`, `-javaagent:`, `-fplugin=`, make's `SHELL=`), which choose what else it loads or runs; every name ending in FLAGS is refused",
    );
    expect(repoEnvNameProblem("KUBECONFIG")).toMatch(/configuration file .*; every name ending in CONFIG is refused$/);
    expect(repoEnvNameProblem("GIT_DIR")).toMatch(/own settings, .*; every name starting with GIT_ is refused$/);
    expect(repoEnvNameProblem("PYTHONINSPECT")).toMatch(/; every name starting with PYTHON is refused$/);
    expect(repoEnvNameProblem("CC_x86_64_unknown_linux_gnu")).toMatch(/compiler, linker.*; every name with the word CC is refused$/);
    expect(repoEnvNameProblem("LUA_CPATH_5_4")).toMatch(/search path.*; every name ending in PATH is refused$/);
    expect(repoEnvNameProblem("CHROME_BIN")).toMatch(/names a program, binary or remote shell .*; every name ending in BIN is refused$/);
    expect(repoEnvNameProblem("XTABLES_LIBDIR")).toMatch(/shared library, driver or engine .*; every name ending in LIBDIR is refused$/);
    expect(repoEnvNameProblem("OCL_ICD_FILENAMES")).toMatch(/shared library, driver or engine .*; every name with the word ICD is refused$/);
    expect(repoEnvNameProblem("MONO_GAC_PREFIX")).toMatch(/install prefix.*; every name ending in PREFIX is refused$/);
    expect(repoEnvNameProblem("COVERAGE_PROCESS_START")).toMatch(/code a program loads or runs as it starts.*; every name ending in START is refused$/);
    expect(repoEnvNameProblem("ANSIBLE_VAULT_PASSWORD_FILE")).toMatch(/names a file a program reads.*; every name ending in FILE is refused$/);
    // A name that ends in DIR, NAME… is judged by what comes before: the rule names both.
    expect(repoEnvNameProblem("ACME_MODULE_DIR")).toMatch(/code a program loads.*; every name ending in MODULE_DIR is refused$/);
    expect(repoEnvNameProblem("LIBVA_DRIVER_NAME")).toMatch(/shared library, driver or engine .*; every name ending in DRIVER_NAME is refused$/);
    expect(repoEnvNameProblem("GOAUTH")).toMatch(/go command's own settings.*; every name of GO and one word \(GOFLAGS\) is refused$/);
    // A whole name has no rule to name.
    expect(repoEnvNameProblem("LANG")).toBe("LANG cannot be set by the repository: the sandbox and Tackle set it themselves");
    expect(repoEnvNameProblem("BASH_FUNC_x%%")).toBe("a variable name is a letter or _, then up to 100 letters, digits and _");
  });

  it("a family takes every name of its shape, not only the ones known today", () => {
    for (const name of [
      "ACME_PLUGIN_PATH",
      "ACME_HOME",
      "ACME_OPTS",
      "ACME_CONFIG_FILE",
      "ACME_PAGER",
      "ACME_MODULES",
      "ACME_BIN",
      "ACME_BINARY",
      "ACME_EXE",
      "ACME_PROG",
      "ACME_RSH",
      "ACME_SSH",
      "ACME_LIBRARY",
      "ACME_DRIVERS",
      "ACME_ENGINE",
      "ACME_FILE",
      "ACME_FILES",
      "ACME_FILENAMES",
      "ACME_INITFILE",
      "ACME_START",
      "ACME_SCRIPTS",
      "ACME_PREFIX",
      "ACME_LIBDIR",
      "ACME_PLUGIN_DIR",
      "GIT_ANYTHING",
      "NODE_ANYTHING",
      "PYTHONANYTHING",
    ]) {
      expect(repoEnvNameProblem(name), name).toBeDefined();
    }
  });

  it("is a config error naming the key and the family", () => {
    const parsed = parseRepoConfig("mcp_servers:\n  tool:\n    command: [node, server.js]\n    env: { JAVA_HOME: /tmp/jdk, GITHUB_TOKEN: x }\n");
    expect(parsed).toEqual({
      ok: false,
      problems: [
        "`mcp_servers.tool.env.JAVA_HOME`: JAVA_HOME cannot be set by the repository: it says where a tool, runtime or toolchain lives or keeps its settings, scripts and plugins, and the tool runs what it finds there; every name ending in HOME is refused (line 4)",
      ],
    });
  });
});

describe("repoEnvNameProblem: the fifth pass's kinds", () => {
  it.each([
    ["CLOUDSDK_PYTHON", /names a program.*; every name ending in PYTHON is refused$/],
    ["PROTOC", /names a program.*; every name ending in PROTOC is refused$/],
    ["ACME_NODE_3", /names a program.*; every name ending in NODE is refused$/],
    ["FLASK_APP", /names code a program loads.*; every name ending in APP is refused$/],
    ["UVICORN_APP", /names code a program loads.*; every name ending in APP is refused$/],
    ["MPLBACKEND", /names code a program loads.*; every name ending in BACKEND is refused$/],
    ["MPLSTYLE", /; every name starting with MPL is refused$/],
    ["KERAS_BACKEND", /names code a program loads.*; every name ending in BACKEND is refused$/],
    ["ACME_LOADER_CLASS", /names code a program loads.*; every name ending in CLASS is refused$/],
    ["TS_NODE_SWC", /; every name starting with TS_NODE_ is refused$/],
    ["ACME_TRANSPILER", /names code a program loads.*; every name ending in TRANSPILER is refused$/],
    ["TEXMFDIR", /tool's own directory.*; every name of one word ending in DIR is refused$/],
    ["JUPYTER_DATA_DIR", /; every name starting with JUPYTER_ is refused$/],
    ["CLOUDSDK_CORE_ACCOUNT", /; every name starting with CLOUDSDK_ is refused$/],
  ])("%s", (name, reason) => {
    expect(repoEnvNameProblem(name)).toMatch(reason);
  });

  it("leaves the ordinary names of those looks", () => {
    for (const name of ["GITHUB_APP_ID", "SCHEMA_DIR", "DATA_DIR", "NODE_ENV", "EPISODE", "GREETING", "BACKEND_URL"]) {
      expect(repoEnvNameProblem(name), name).toBeUndefined();
    }
  });
});
