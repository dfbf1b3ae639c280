import { isMap, isScalar, isSeq, type Document, type LineCounter, type Pair } from "yaml";
import { z } from "zod";
import { createPathMatcher } from "../util/create-path-matcher.js";
import { BLOCKED_REGEX_MAX_ENTRIES, parseBlockedCommand } from "./blocked-command-regex.js";
import { compileHookMatcher } from "./compile-hook-matcher.js";
import { parseBoundedYaml, type YamlProblem } from "./parse-bounded-yaml.js";
import { parseHostPattern } from "./parse-fetch-allow.js";
import { repoEnvNameProblem } from "./repo-env-name.js";
import { closestKey, describeValue } from "./problem-text.js";

/** Always protected, whatever the repo config says; a repo's `protected_paths` add to these. */
export const DEFAULT_PROTECTED_PATHS: readonly string[] = [".github/workflows/**", ".git/**"];
/** A file larger than this is never published: refused rather than counted by lines. */
export const MAX_PUBLISHED_FILE_BYTES = 10 * 1024 * 1024;
/** A symlink target longer than this is not read by the publish check (Linux's PATH_MAX: symlink(2) refuses more). */
export const MAX_SYMLINK_TARGET_BYTES = 4096;
/** A tree with more symlinks than this is not resolved by the publish check: a publish that changes a symlink there is refused. */
export const MAX_TREE_SYMLINKS = 10_000;
/** `max_diff_bytes` when the repo config does not set it: what a published change may add, in bytes. */
export const DEFAULT_MAX_DIFF_BYTES = 5 * 1024 * 1024;

/** Where a repository keeps its Tackle settings, read from the default branch only. */
export const REPO_CONFIG_PATH = ".github/tackle.yml";

/** `.github/tackle.yml`. Keys are snake_case here as in the file, so one name is used everywhere. */
export interface RepoConfig {
  trigger: {
    /** The label whose addition starts a job. @defaultValue "tackle" */
    label: string;
    /** The mention and command name (`@phrase`, `/phrase`), without `@`. @defaultValue the bot name */
    phrase?: string | undefined;
    /** Start when the issue is assigned to the bot. @defaultValue true */
    on_assign: boolean;
    /** Start when the trigger label is added. @defaultValue true */
    on_label: boolean;
    /** Start on mentions in comments and reviews (commands always work). @defaultValue true */
    on_comment: boolean;
  };
  /** Model for this repository; must be in the operator's TACKLE_ALLOWED_MODELS (see resolveModel). @defaultValue TACKLE_MODEL */
  model?: string | undefined;
  /** Model turns per job, at most 500. @defaultValue 60 */
  max_turns: number;
  /** Spend per job in US dollars, at most 100. @defaultValue 5 */
  max_cost_usd: number;
  /**
   * What this repository's jobs may spend together per UTC day, in US dollars. It only lowers the
   * operator's TACKLE_DAILY_BUDGET_USD (a higher value has no effect: both caps apply). Jobs run by
   * `tackle server` and `tackle worker` only. @defaultValue no cap of its own
   */
  daily_budget_usd?: number | undefined;
  /** Wall-clock limit per job, at most 360. @defaultValue 30 */
  timeout_minutes: number;
  /** Output tokens per model response. @defaultValue 16000 */
  max_output_tokens: number;
  /** Shell commands run after checkout, with network, before the agent starts; at most 20. @defaultValue [] */
  setup: string[];
  /** Globs the agent may not write. The defaults always stay; entries here are added. @defaultValue [".github/workflows/**", ".git/**"] */
  protected_paths: string[];
  /** Command patterns the agent's Bash may not run. @defaultValue [] */
  blocked_commands: string[];
  /** Largest diff a job may produce, in changed lines. @defaultValue 2000 */
  max_diff_lines: number;
  /**
   * Diffs larger than this many changed lines wait for `/tackle approve`: at the write that grows them,
   * and at publish when the host's own count of the change is above it. @defaultValue no approval needed
   */
  require_approval_above?: number | undefined;
  /** Largest change a job may publish, in bytes its new lines add (a binary file: its size). @defaultValue 5 MiB */
  max_diff_bytes: number;
  /** Open pull requests as drafts. @defaultValue true */
  draft_pr: boolean;
  /** Bot logins that may trigger jobs, e.g. `renovate[bot]`. @defaultValue [] */
  allowed_bots: string[];
  /** How long a policy question waits for approve or deny before it counts as denied. @defaultValue 30 */
  approval_timeout_minutes: number;
  /** Extra guidance for the agent, at most 8000 characters. @defaultValue none */
  instructions?: string | undefined;
  /** WebFetch: host patterns that narrow the operator's TACKLE_FETCH_ALLOW (never widen it). @defaultValue the operator's list */
  web_fetch: {
    /** `host`, `*.host`, `*`, `ip:port`. An empty list turns WebFetch off for this repository. */
    allow?: string[] | undefined;
  };
  /** Durable per-repository memory (MemoryRead / MemoryWrite). @defaultValue true */
  memory: boolean;
  /**
   * MCP servers by name: `{ url, headers? }` (streamable HTTP, reached by the host under WebFetch's
   * allow-lists) or `{ command: [argv…], env? }` (stdio); `trusted: true` skips the approval of each
   * tool's first call. Values are literal except `${TACKLE_SECRET_*}`, from the operator's environment.
   * @defaultValue {}
   */
  mcp_servers: Record<string, McpServerConfig>;
  /** Commands run in the sandbox around tool calls, Claude Code's way. @defaultValue no hooks */
  hooks: {
    /** Run after the policy allows a call and before approval; exit 2 denies it. @defaultValue [] */
    PreToolUse: HookConfig[];
    /** Run after the call; exit 2 appends stderr to its result. @defaultValue [] */
    PostToolUse: HookConfig[];
  };
}

/** One hook of `hooks.PreToolUse` or `hooks.PostToolUse`. */
export interface HookConfig {
  /** A regular expression over the whole tool name; empty matches every tool. @defaultValue "" */
  matcher: string;
  /** Run with `bash -c` in the sandbox from the worktree root, the call's JSON on stdin. */
  command: string;
}

export type McpServerConfig =
  | { url: string; headers?: Record<string, string> | undefined; trusted: boolean }
  | { command: string[]; env?: Record<string, string> | undefined; trusted: boolean };

const name = /^[A-Za-z0-9][A-Za-z0-9-]*$/;

const triggerSchema = z
  .object({
    label: z.string().trim().min(1).max(50).default("tackle"),
    phrase: z
      .string()
      .transform((phrase) => phrase.trim().replace(/^@/, ""))
      .pipe(z.string().regex(name))
      .optional(),
    on_assign: z.boolean().default(true),
    on_label: z.boolean().default(true),
    on_comment: z.boolean().default(true),
  })
  .strict();

/** A WebFetch pattern that does not parse is named here, where the repository sees it, not when a fetcher is built. */
const hostPattern = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .superRefine((pattern, ctx) => {
    if (pattern === "") return; // min(1) says so already
    const parsed = parseHostPattern(pattern);
    if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.problem });
  });

const webFetchSchema = z
  .object({
    allow: z.array(hostPattern).max(100).optional(),
  })
  .strict();

const mcpServerSchema = z
  .union(
    [
      z
        .object({
          url: z.url({ protocol: /^https?$/ }),
          headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/), z.string().max(4_000)).optional(),
          trusted: z.boolean().default(false),
        })
        .strict(),
      z
        .object({
          command: z.array(z.string().min(1)).min(1).max(100),
          env: z.record(z.string(), z.string().max(4_000)).optional(),
          trusted: z.boolean().default(false),
        })
        .strict(),
    ],
    { error: "expected `{url: http(s)://…, headers?, trusted?}` or `{command: [argv…], env?, trusted?}`" },
  )
  .superRefine((server, ctx) => {
    // Checked past the union, so that each refused variable is a problem naming its own key.
    for (const name of Object.keys("env" in server ? (server.env ?? {}) : {})) {
      const problem = repoEnvNameProblem(name);
      if (problem !== undefined) ctx.addIssue({ code: "custom", path: ["env", name], message: problem });
    }
  });
const hookSchema = z
  .object({
    matcher: z
      .string()
      .default("")
      .superRefine((matcher, ctx) => {
        const compiled = compileHookMatcher(matcher);
        if (!compiled.ok) ctx.addIssue({ code: "custom", message: compiled.problem });
      }),
    command: z.string().trim().min(1).max(4000),
  })
  .strict();

const hooksSchema = z
  .object({
    PreToolUse: z.array(hookSchema).max(20).default([]),
    PostToolUse: z.array(hookSchema).max(20).default([]),
  })
  .strict();

const positiveInt = (max?: number) => (max === undefined ? z.number().int().positive() : z.number().int().positive().max(max));
const stringList = z.array(z.string().trim().min(1));

/** A `/regex/` entry that is not one, or could backtrack without bound on a long command, is a problem, not silence. */
const blockedCommand = z
  .string()
  .trim()
  .min(1)
  .superRefine((entry, ctx) => {
    const parsed = parseBlockedCommand(entry);
    if (parsed.kind === "invalid") ctx.addIssue({ code: "custom", message: parsed.problem });
  });

/** Every `/regex/` entry is tried on every text of every Bash command: their number is bounded too. */
function fewRegexEntries(entries: readonly string[], ctx: z.RefinementCtx): void {
  const regexes = entries.filter((entry) => parseBlockedCommand(entry).kind !== "text").length;
  if (regexes > BLOCKED_REGEX_MAX_ENTRIES) {
    ctx.addIssue({
      code: "custom",
      message: `${regexes} regular expressions (/…/ entries); at most ${BLOCKED_REGEX_MAX_ENTRIES} (plain text entries are not limited this way)`,
    });
  }
}

/**
 * `protected_paths`, compiled once as the matcher will be: a pattern that cannot match as written
 * would protect nothing, silently, so it is a problem on its entry; the list as a whole is bounded
 * too (every pattern is tested on every path).
 */
function compilesAsPathMatcher(patterns: string[], ctx: z.RefinementCtx): void {
  const matcher = createPathMatcher(patterns);
  if (matcher.ok) return;
  for (const { index, problem } of matcher.entries) ctx.addIssue({ code: "custom", message: problem, path: [index] });
  if (matcher.entries.length === 0) for (const problem of matcher.problems) ctx.addIssue({ code: "custom", message: problem });
}

const repoConfigSchema = z
  .object({
    trigger: triggerSchema.prefault({}),
    model: z.string().trim().min(1).optional(),
    max_turns: positiveInt(500).default(60),
    max_cost_usd: z.number().positive().max(100).default(5),
    daily_budget_usd: z.number().positive().max(1_000_000).optional(),
    timeout_minutes: positiveInt(360).default(30),
    max_output_tokens: positiveInt(128_000).default(16_000),
    setup: stringList.max(20).default([]),
    protected_paths: z.array(z.string().trim().min(1)).max(200).superRefine(compilesAsPathMatcher).default([]),
    blocked_commands: z.array(blockedCommand).max(200).superRefine(fewRegexEntries).default([]),
    max_diff_lines: positiveInt().default(2000),
    require_approval_above: positiveInt().optional(),
    max_diff_bytes: positiveInt().default(DEFAULT_MAX_DIFF_BYTES),
    draft_pr: z.boolean().default(true),
    allowed_bots: stringList.max(50).default([]),
    approval_timeout_minutes: positiveInt(1440).default(30),
    instructions: z.string().max(8000).optional(),
    web_fetch: webFetchSchema.prefault({}),
    memory: z.boolean().default(true),
    mcp_servers: z
      .record(z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, "a server name is 1 to 32 lowercase letters, digits and dashes"), mcpServerSchema)
      .refine((servers) => Object.keys(servers).length <= 20, { message: "at most 20 servers" })
      .default({}),
    hooks: hooksSchema.prefault({}),
  })
  .strict();

// The schema's output must stay assignable to the documented interface.
const _schemaMatchesInterface: (parsed: z.output<typeof repoConfigSchema>) => RepoConfig = (parsed) => parsed;
void _schemaMatchesInterface;

/** What each key should hold, in the words a problem message uses. `[]` stands for any list index. */
const EXPECTED: Record<string, string> = {
  "": "a mapping of settings",
  trigger: "a mapping with `label`, `phrase`, `on_assign`, `on_label` and `on_comment`",
  "trigger.label": "a label name of 1 to 50 characters",
  "trigger.phrase": "a bot name of letters, digits and dashes, such as `tackle`",
  "trigger.on_assign": "true or false",
  "trigger.on_label": "true or false",
  "trigger.on_comment": "true or false",
  model: "a model name",
  max_turns: "a positive integer",
  max_cost_usd: "a positive number of dollars",
  daily_budget_usd: "a positive number of dollars",
  timeout_minutes: "a positive integer",
  max_output_tokens: "a positive integer",
  setup: "a list of shell commands",
  "setup[]": "a non-empty shell command",
  protected_paths: "a list of globs",
  "protected_paths[]": "a non-empty glob",
  blocked_commands: "a list of command patterns",
  "blocked_commands[]": "a non-empty command pattern",
  max_diff_lines: "a positive integer",
  require_approval_above: "a positive integer",
  max_diff_bytes: "a positive integer (bytes)",
  draft_pr: "true or false",
  allowed_bots: "a list of bot logins",
  "allowed_bots[]": "a non-empty login",
  approval_timeout_minutes: "a positive integer",
  instructions: "text",
  web_fetch: "a mapping with `allow`",
  "web_fetch.allow": "a list of host patterns (`host`, `*.host`, `*`, `ip:port`)",
  "web_fetch.allow[]": "a host pattern",
  memory: "true or false",
  mcp_servers: "a mapping of server names (lowercase letters, digits and dashes) to `{url, headers?, trusted?}` or `{command: [argv…], env?, trusted?}`",
  hooks: "a mapping with `PreToolUse` and `PostToolUse`",
  "hooks.PreToolUse": "a list of `{matcher, command}`",
  "hooks.PostToolUse": "a list of `{matcher, command}`",
  "hooks.PreToolUse[]": "a mapping with `matcher` and `command`",
  "hooks.PostToolUse[]": "a mapping with `matcher` and `command`",
  "hooks.PreToolUse[].matcher": "a regular expression over tool names",
  "hooks.PostToolUse[].matcher": "a regular expression over tool names",
  "hooks.PreToolUse[].command": "a non-empty shell command",
  "hooks.PostToolUse[].command": "a non-empty shell command",
};

const KNOWN_KEYS: Record<string, readonly string[]> = {
  "": Object.keys(repoConfigSchema.shape),
  trigger: Object.keys(triggerSchema.shape),
  web_fetch: Object.keys(webFetchSchema.shape),
  hooks: Object.keys(hooksSchema.shape),
};

export type RepoConfigResult = { ok: true; config: RepoConfig; warnings: string[] } | { ok: false; problems: string[] };

/** The settings of a repository without `.github/tackle.yml`. */
export function defaultRepoConfig(): RepoConfig {
  return withDefaultProtectedPaths(repoConfigSchema.parse({}));
}

/**
 * Parses `.github/tackle.yml` (null when the file does not exist). Every problem is reported at
 * once, each naming its key path and line, so one comment on the issue can list them all; unknown
 * keys are problems, with a suggestion when one is close.
 */
export function parseRepoConfig(yamlText: string | null): RepoConfigResult {
  if (yamlText === null) return { ok: true, config: defaultRepoConfig(), warnings: [] };

  const parsed = parseBoundedYaml(yamlText);
  if (parsed.kind === "refused") return { ok: false, problems: [`the file ${parsed.problem}${parsed.line === undefined ? "" : ` (line ${parsed.line})`}`] };
  if (parsed.kind === "invalid") return { ok: false, problems: parsed.problems.map(yamlProblem) };
  const { data, doc, lines } = parsed;
  const warnings = parsed.warnings.map(yamlProblem);
  // A file with nothing but comments means the defaults.
  const checked = repoConfigSchema.safeParse(data ?? {});
  if (!checked.success) {
    const locate = nodeLocator(doc);
    const problems = checked.error.issues.flatMap((issue) => describeIssue(issue, data, locate, lines));
    return { ok: false, problems: inLineOrder(problems) };
  }
  warnings.push(...redundantProtectedPaths(checked.data.protected_paths), ...checkoutHookScripts(checked.data.hooks));
  return { ok: true, config: withDefaultProtectedPaths(checked.data), warnings };
}

function withDefaultProtectedPaths(config: RepoConfig): RepoConfig {
  const paths = [...new Set([...DEFAULT_PROTECTED_PATHS, ...config.protected_paths])];
  return { ...config, protected_paths: paths };
}

function redundantProtectedPaths(paths: readonly string[]): string[] {
  return paths
    .filter((path) => DEFAULT_PROTECTED_PATHS.includes(path))
    .map((path) => `\`protected_paths\`: \`${path}\` is always protected; listing it changes nothing`);
}

/**
 * A hook naming `.tackle/hooks/…` by its checkout path runs the copy the agent can rewrite; the default
 * branch's read-only copy is at `$TACKLE_HOOKS_DIR`.
 */
function checkoutHookScripts(hooks: RepoConfig["hooks"]): string[] {
  return (["PreToolUse", "PostToolUse"] as const).flatMap((event) =>
    hooks[event]
      .map((hook, index) => ({ hook, index }))
      .filter(({ hook }) => hook.command.includes(".tackle/hooks"))
      .map(
        ({ index }) =>
          `\`hooks.${event}[${index}].command\`: names a script by its path in the checkout, which the agent can rewrite; use "$TACKLE_HOOKS_DIR/…", the default branch's read-only copy`,
      ),
  );
}

/** Problems in the order of the file, so a reader can walk down it; those without a line go last. */
function inLineOrder(problems: readonly string[]): string[] {
  const line = (problem: string) => Number(/ \(line (\d+)\)$/.exec(problem)?.[1] ?? Number.MAX_SAFE_INTEGER);
  return [...problems].sort((a, b) => line(a) - line(b));
}

function yamlProblem({ message, line, col }: YamlProblem): string {
  return line === undefined ? `YAML: ${message}` : `line ${line}, column ${col ?? 1}: ${message}`;
}

function describeIssue(issue: z.core.$ZodIssue, data: unknown, locate: NodeLocator, lines: LineCounter): string[] {
  const path = issue.path.filter((part): part is string | number => typeof part !== "symbol");
  if (issue.code === "unrecognized_keys") {
    const known = KNOWN_KEYS[path.join(".")] ?? [];
    return issue.keys.map((key) => {
      const suggestion = closestKey(key, known);
      const hint = suggestion === undefined ? "" : ` (did you mean \`${suggestion}\`?)`;
      return `\`${formatPath([...path, key])}\`: unknown key${hint}${lineOf(locate, lines, path, key)}`;
    });
  }
  const value = valueAt(data, path);
  const where = `\`${formatPath(path)}\``;
  if (issue.code === "custom") return [`${where}: ${issue.message}${lineOf(locate, lines, path)}`];
  const got = describeValue(value);
  if (issue.code === "too_big") {
    const limit = String(issue.maximum);
    const at = lineOf(locate, lines, path);
    if (issue.origin === "array") return [`${where}: expected at most ${limit} entries, got ${(value as unknown[]).length}${at}`];
    if (issue.origin === "string") return [`${where}: expected at most ${limit} characters, got ${(value as string).length}${at}`];
    return [`${where}: expected at most ${limit}, got ${got}${at}`];
  }
  const expected =
    EXPECTED[
      path
        .map((part) => (typeof part === "number" ? "[]" : part))
        .join(".")
        .replace(/\.\[\]/g, "[]")
    ];
  const text = expected === undefined ? issue.message : `expected ${expected}`;
  return [`${path.length === 0 ? "the file" : where}: ${text}, got ${got}${lineOf(locate, lines, path)}`];
}

/** `trigger.label`, `setup[2]`. */
function formatPath(path: readonly (string | number)[]): string {
  return path.reduce<string>((text, part) => {
    if (typeof part === "number") return `${text}[${part}]`;
    return text === "" ? part : `${text}.${part}`;
  }, "");
}

function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let value = data;
  for (const part of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value;
}

/** " (line N)" for the value at `path`, or for the key `key` of the mapping at `path`; "" when unknown. */
function lineOf(locate: NodeLocator, lines: LineCounter, path: readonly (string | number)[], key?: string): string {
  let offset: number | undefined;
  if (key === undefined) {
    // A required key that is missing has no node: name the line of the nearest entry that holds it.
    const found = locate(path);
    for (let depth = found.length - 1; offset === undefined && depth >= 0; depth -= 1) offset = rangeStart(found[depth]?.value);
  } else {
    const found = locate([...path, key]);
    if (found.length === path.length + 2) offset = rangeStart(found[path.length + 1]?.key);
  }
  return offset === undefined ? "" : ` (line ${lines.linePos(offset).line})`;
}

/** The nodes along a path, from the document's root to as deep as the path exists: each value, with its key in a mapping. */
type NodeLocator = (path: readonly (string | number)[]) => Array<{ key?: unknown; value: unknown }>;

/**
 * Finds nodes by path without searching: each mapping's keys are put in a map the first time a path
 * goes through it, so a problem for each of many keys costs no more than the keys themselves.
 */
function nodeLocator(doc: Document): NodeLocator {
  const indexes = new Map<unknown, Map<string, Pair>>();
  const pairsOf = (node: unknown): Map<string, Pair> | undefined => {
    if (!isMap(node)) return undefined;
    let index = indexes.get(node);
    if (index === undefined) {
      index = new Map();
      // The last of two keys alike as text wins, as it does in the data the schema saw.
      for (const pair of node.items) if (isScalar(pair.key)) index.set(String(pair.key.value), pair);
      indexes.set(node, index);
    }
    return index;
  };
  return (path) => {
    const found: Array<{ key?: unknown; value: unknown }> = [{ value: doc.contents }];
    for (const part of path) {
      const parent = found[found.length - 1]?.value;
      const pair = pairsOf(parent)?.get(String(part));
      const item = isSeq(parent) && typeof part === "number" ? parent.items[part] : undefined;
      if (pair !== undefined) found.push({ key: pair.key, value: pair.value });
      else if (item !== undefined) found.push({ value: item });
      else break;
    }
    return found;
  };
}

function rangeStart(node: unknown): number | undefined {
  if (node === null || typeof node !== "object" || !("range" in node)) return undefined;
  const range = (node as { range?: unknown }).range;
  return Array.isArray(range) && typeof range[0] === "number" ? range[0] : undefined;
}
