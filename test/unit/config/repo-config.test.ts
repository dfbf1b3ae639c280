import { describe, expect, it } from "vitest";
import { compileHookMatcher } from "../../../src/config/compile-hook-matcher.js";
import { DEFAULT_PROTECTED_PATHS, defaultRepoConfig, parseRepoConfig, resolveModel, type RepoConfig } from "../../../src/config/index.js";

function problemsOf(yaml: string): string[] {
  const result = parseRepoConfig(yaml);
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.config)}`);
  return result.problems;
}

function configOf(yaml: string | null): RepoConfig {
  const result = parseRepoConfig(yaml);
  if (!result.ok) throw new Error(`unexpected problems: ${result.problems.join("; ")}`);
  return result.config;
}

describe("defaultRepoConfig", () => {
  it("holds the documented defaults", () => {
    expect(defaultRepoConfig()).toEqual({
      trigger: { label: "tackle", on_assign: true, on_label: true, on_comment: true },
      max_turns: 60,
      max_cost_usd: 5,
      timeout_minutes: 30,
      max_output_tokens: 16_000,
      setup: [],
      protected_paths: [".github/workflows/**", ".git/**"],
      blocked_commands: [],
      max_diff_lines: 2000,
      max_diff_bytes: 5 * 1024 * 1024,
      draft_pr: true,
      allowed_bots: [],
      approval_timeout_minutes: 30,
      web_fetch: {},
      memory: true,
      mcp_servers: {},
      hooks: { PreToolUse: [], PostToolUse: [] },
    });
  });

  it("returns a fresh object each time", () => {
    const config = defaultRepoConfig();
    config.setup.push("npm ci");
    expect(defaultRepoConfig().setup).toEqual([]);
  });
});

describe("parseRepoConfig", () => {
  it("uses the defaults when there is no file, an empty file or only comments", () => {
    expect(parseRepoConfig(null)).toEqual({ ok: true, config: defaultRepoConfig(), warnings: [] });
    expect(configOf("")).toEqual(defaultRepoConfig());
    expect(configOf("# nothing yet\n")).toEqual(defaultRepoConfig());
  });

  it("reads a full, valid file", () => {
    const config = configOf(`
trigger:
  label: ai-fix
  phrase: "@helper"
  on_assign: false
model: claude-opus-4-1
max_turns: 120
max_cost_usd: 12.5
timeout_minutes: 90
max_output_tokens: 32000
setup:
  - npm ci
  - npm run build
protected_paths:
  - "infra/**"
blocked_commands: ["npm publish"]
max_diff_lines: 800
max_diff_bytes: 1048576
require_approval_above: 300
draft_pr: false
allowed_bots: ["renovate[bot]"]
approval_timeout_minutes: 60
instructions: |
  Run npm test before committing.
web_fetch:
  allow: ["docs.python.org", "*.readthedocs.io"]
memory: false
`);
    expect(config).toEqual({
      trigger: { label: "ai-fix", phrase: "helper", on_assign: false, on_label: true, on_comment: true },
      model: "claude-opus-4-1",
      max_turns: 120,
      max_cost_usd: 12.5,
      timeout_minutes: 90,
      max_output_tokens: 32_000,
      setup: ["npm ci", "npm run build"],
      protected_paths: [".github/workflows/**", ".git/**", "infra/**"],
      blocked_commands: ["npm publish"],
      max_diff_lines: 800,
      max_diff_bytes: 1_048_576,
      require_approval_above: 300,
      draft_pr: false,
      allowed_bots: ["renovate[bot]"],
      approval_timeout_minutes: 60,
      instructions: "Run npm test before committing.\n",
      web_fetch: { allow: ["docs.python.org", "*.readthedocs.io"] },
      memory: false,
      mcp_servers: {},
      hooks: { PreToolUse: [], PostToolUse: [] },
    });
  });

  it("keeps the default protected paths whatever the file lists, and warns about repeats", () => {
    const result = parseRepoConfig("protected_paths: ['.git/**', 'secrets/**']\n");
    expect(result).toEqual({
      ok: true,
      config: { ...defaultRepoConfig(), protected_paths: [...DEFAULT_PROTECTED_PATHS, "secrets/**"] },
      warnings: ["`protected_paths`: `.git/**` is always protected; listing it changes nothing"],
    });
  });

  it("reports every problem at once, with key paths, values and lines", () => {
    const problems = problemsOf(
      [
        "max_turns: -1", // 1
        "protected_pathz: ['x/**']", // 2
        "trigger:", // 3
        "  lable: ai", // 4
        "  on_comment: sometimes", // 5
        "max_cost_usd: 500", // 6
        "setup:", // 7
        "  - npm ci", // 8
        "  - ''", // 9
        "draft_pr: 'yes'", // 10
        "timeout_minutes: 1.5", // 11
        "maxTurns: 3", // 12
        "frobnicate: true", // 13
      ].join("\n"),
    );
    expect(problems).toEqual([
      "`max_turns`: expected a positive integer, got -1 (line 1)",
      "`protected_pathz`: unknown key (did you mean `protected_paths`?) (line 2)",
      "`trigger.lable`: unknown key (did you mean `label`?) (line 4)",
      '`trigger.on_comment`: expected true or false, got "sometimes" (line 5)',
      "`max_cost_usd`: expected at most 100, got 500 (line 6)",
      '`setup[1]`: expected a non-empty shell command, got "" (line 9)',
      '`draft_pr`: expected true or false, got "yes" (line 10)',
      "`timeout_minutes`: expected a positive integer, got 1.5 (line 11)",
      "`maxTurns`: unknown key (did you mean `max_turns`?) (line 12)",
      "`frobnicate`: unknown key (line 13)",
    ]);
  });

  it("counts list entries and characters against their limits", () => {
    const setup = Array.from({ length: 21 }, (_, index) => `  - echo ${index}`).join("\n");
    expect(problemsOf(`setup:\n${setup}\ninstructions: "${"x".repeat(8001)}"\n`)).toEqual([
      "`setup`: expected at most 20 entries, got 21 (line 2)",
      "`instructions`: expected at most 8000 characters, got 8001 (line 23)",
    ]);
  });

  it("refuses a file that is not a mapping", () => {
    expect(problemsOf("- a\n- b\n")).toEqual(["the file: expected a mapping of settings, got a list of 2 (line 1)"]);
  });

  it("reports an empty value as such", () => {
    expect(problemsOf("max_turns:\n")).toEqual(["`max_turns`: expected a positive integer, got an empty value (line 1)"]);
  });

  it("names the line of a YAML syntax error", () => {
    const problems = problemsOf("max_turns: 10\nsetup: [npm ci\ndraft_pr: true\n");
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^line \d+, column \d+: /);
    expect(problems[0]).not.toContain("\n");
  });

  it("refuses duplicate keys, naming the line", () => {
    expect(problemsOf("max_turns: 10\nmax_turns: 20\n")).toEqual(["line 2, column 1: Map keys must be unique"]);
  });

  it("names every one of many unknown keys with its own line, numbers and words alike", () => {
    const keys = Array.from({ length: 2_000 }, (_, i) => `key${i}: 1`);
    const problems = problemsOf(`${keys.join("\n")}\n1: one\ntrue: yes\n`);
    expect(problems).toHaveLength(2_002);
    expect(problems[0]).toBe("`key0`: unknown key (line 1)");
    expect(problems[1_999]).toBe("`key1999`: unknown key (line 2000)");
    expect(problems.slice(2_000)).toEqual(["`1`: unknown key (line 2001)", "`true`: unknown key (line 2002)"]);
  });

  it("refuses a file of more keys and values than any config has, with one problem", () => {
    const keys = Array.from({ length: 3_000 }, (_, i) => `key${i}: 1`);
    expect(problemsOf(keys.join("\n"))).toEqual([
      "the file holds more than 5000 keys and values (an alias counts as all it stands for); Tackle reads nothing this large",
    ]);
  });

  it("refuses a file nested deeper than any config, naming the line, however often it is read", () => {
    const deep = `mcp_servers:\n  a:\n    command: ${"[".repeat(62)}${"]".repeat(62)}\n`;
    const refusal = "the file nests lists and mappings more than 64 levels deep; Tackle reads nothing nested this far (line 3)";
    for (let read = 0; read < 3; read += 1) expect(problemsOf(deep)).toEqual([refusal]);
    expect(problemsOf(`mcp_servers:\n  a:\n    command: ${"[".repeat(61)}${"]".repeat(61)}\n`)).not.toContain(refusal);
  });

  it("refuses an unresolved alias without throwing", () => {
    expect(parseRepoConfig("max_turns: *nope\n").ok).toBe(false);
  });

  it("accepts protected paths with extglobs, POSIX classes and brace ranges", () => {
    const config = configOf("protected_paths: ['+(a|b).txt', 'keys/[[:digit:]]*.pem', 'env{1..3}.yml', '**/.env*']\n");
    expect(config.protected_paths).toEqual([...DEFAULT_PROTECTED_PATHS, "+(a|b).txt", "keys/[[:digit:]]*.pem", "env{1..3}.yml", "**/.env*"]);
  });

  it("names each protected path that cannot match as written, never protecting nothing silently", () => {
    const problems = problemsOf(
      [
        "protected_paths:", // 1
        "  - infra/**", // 2
        "  - secrets/+(prod|staging", // 3
        "  - '[z-a].key'", // 4
        "  - /etc/**", // 5
        "  - docs/", // 6
        "  - 'env{a..5}'", // 7
      ].join("\n"),
    );
    expect(problems).toEqual([
      "`protected_paths[1]`: `secrets/+(prod|staging` is not a valid glob: a `+(` is never closed; write `\\(` for the character (line 3)",
      "`protected_paths[2]`: `[z-a].key` is not a valid glob: the range z-a in [z-a] is out of order (line 4)",
      "`protected_paths[3]`: `/etc/**` starts with `/`; paths are relative to the repository root, so drop it (line 5)",
      "`protected_paths[4]`: `docs/` ends with `/`; write `docs/**` to protect a directory and everything in it (line 6)",
      "`protected_paths[5]`: `env{a..5}` is not a valid glob: {a..5} is not a range of whole numbers or of single letters (line 7)",
    ]);
  });
});

describe("parseRepoConfig: hooks", () => {
  it("reads PreToolUse and PostToolUse lists, an absent matcher meaning every tool", () => {
    const config = configOf(
      [
        "hooks:",
        "  PreToolUse:",
        "    - matcher: Bash",
        "      command: '\"$TACKLE_HOOKS_DIR/deny-rm.sh\"'",
        "  PostToolUse:",
        "    - command: echo done",
      ].join("\n"),
    );
    expect(config.hooks).toEqual({
      PreToolUse: [{ matcher: "Bash", command: '"$TACKLE_HOOKS_DIR/deny-rm.sh"' }],
      PostToolUse: [{ matcher: "", command: "echo done" }],
    });
  });

  it("names each bad entry with its line: a matcher that is not a regular expression, a missing command, an unknown event", () => {
    const problems = problemsOf(
      [
        "hooks:", // 1
        "  PreToolUse:", // 2
        "    - matcher: Edit|Write", // 3
        "      command: ./lint.sh", // 4
        "    - matcher: 'mcp__(.*'", // 5
        "      command: ./check.sh", // 6
        "  PostToolUse:", // 7
        "    - matcher: Bash", // 8
        "  Stop:", // 9
        "    - command: x", // 10
      ].join("\n"),
    );
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^`hooks.PreToolUse\[1\].matcher`: not a regular expression: .* \(line 5\)$/);
    expect(problems[1]).toBe("`hooks.PostToolUse[0].command`: expected a non-empty shell command, got nothing (line 8)");
    expect(problems[2]).toBe("`hooks.Stop`: unknown key (line 9)");
  });

  it("warns when a hook runs a script from the checkout rather than the default branch's copy", () => {
    const result = parseRepoConfig(["hooks:", "  PreToolUse:", "    - matcher: Bash", "      command: .tackle/hooks/deny-rm.sh"].join("\n"));
    expect(result.ok && result.warnings).toEqual([
      '`hooks.PreToolUse[0].command`: names a script by its path in the checkout, which the agent can rewrite; use "$TACKLE_HOOKS_DIR/…", the default branch\'s read-only copy',
    ]);
  });
});

describe("compileHookMatcher", () => {
  it.each(["a|a)*(?:!", "x)|(y", "Edit)"])("refuses %s, which is no regular expression by itself (it would close the anchoring group)", (matcher) => {
    const compiled = compileHookMatcher(matcher);
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.problem).toMatch(/^not a regular expression: /);
  });

  it("matches the whole tool name, an empty matcher every name", () => {
    const regex = (matcher: string) => {
      const compiled = compileHookMatcher(matcher);
      if (!compiled.ok) throw new Error(compiled.problem);
      return compiled.regex;
    };
    expect(regex("Edit|Write").test("Edit")).toBe(true);
    expect(regex("Edit|Write").test("Write")).toBe(true);
    expect(regex("Edit|Write").test("NotEdit")).toBe(false);
    expect(regex("Edit|Write").test("Writer")).toBe(false);
    expect(regex("mcp__.*").test("mcp__github__search")).toBe(true);
    expect(regex("").test("Bash")).toBe(true);
    expect(compileHookMatcher("(").ok).toBe(false);
  });
});

describe("resolveModel", () => {
  const env = { model: "claude-sonnet-4-5", allowedModels: ["claude-sonnet-4-5", "claude-opus-4-1"] };

  it("uses the operator's default when the repo asks for nothing", () => {
    expect(resolveModel(undefined, env)).toEqual({ ok: true, model: "claude-sonnet-4-5" });
  });

  it("accepts an allowed model", () => {
    expect(resolveModel("claude-opus-4-1", env)).toEqual({ ok: true, model: "claude-opus-4-1" });
  });

  it("refuses a model outside the allowed list, naming the key and the choices", () => {
    expect(resolveModel("gpt-5", env)).toEqual({
      ok: false,
      problem: "`model`: `gpt-5` is not allowed on this Tackle installation; allowed: `claude-sonnet-4-5`, `claude-opus-4-1`",
    });
  });
});
