import path from "node:path";
import { requiredText } from "./parse-agent-definition.js";
import { parseFrontMatter } from "./parse-front-matter.js";
import { closestKey, describeValue } from "./problem-text.js";
import type { SkillDefinition, SkillToolDefinition } from "./repo-extensions.js";

const SKILL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const TOOL_NAME = /^[a-z0-9_-]{1,40}$/;
const TOOL_KEYS = ["name", "description", "input_schema", "command"];
/** The model API's limit on a tool's name, which `skill__<skill>__<tool>` must fit. */
export const MAX_TOOL_NAME_CHARS = 64;

export interface SkillContext {
  /** Absolute path of the extraction root. */
  dir: string;
  /** Every extracted file, repo-relative. */
  fileList: readonly string[];
  /** Repo-relative paths of the executable files; absent: not checked. */
  executable?: ReadonlySet<string> | undefined;
}

export type SkillFileResult = { kind: "skill"; skill: SkillDefinition } | { kind: "invalid"; problems: string[] };

/** The name a skill's tool is offered to the model under once the skill is invoked. */
export function skillToolName(skill: string, tool: string): string {
  return `skill__${skill}__${tool}`;
}

/**
 * One `<root>/<folder>/SKILL.md`. `name` falls back to the folder's name, as in Claude Code; keys
 * Tackle does not use (`allowed-tools`, `license`, `metadata`, …) are ignored, never an error.
 * Each problem is named `<path>: \`<key>\`: …`.
 */
export function parseSkillDefinition(file: { path: string; content: string }, folder: string, context: SkillContext): SkillFileResult {
  const front = parseFrontMatter(file.content);
  if (front.kind === "invalid") return { kind: "invalid", problems: [`${file.path}: ${front.problem}`] };
  if (front.kind === "none") return { kind: "invalid", problems: [`${file.path}: no front matter; start the file with --- name, description ---`] };
  const { data, body } = front;
  const problems: string[] = [];
  const problem = (key: string, text: string) => problems.push(`${file.path}: \`${key}\`: ${text}`);

  const name = data.name ?? folder;
  if (typeof name !== "string" || !SKILL_NAME.test(name)) {
    const given = data.name === undefined ? `the folder's name, ${describeValue(folder)}` : describeValue(name);
    problem("name", `lowercase letters, digits, hyphens and underscores, at most 64, starting with a letter or digit (got ${given})`);
  }
  const description = requiredText(data.description, (text) => problem("description", text));
  const skillDir = path.posix.dirname(file.path);
  const tools = data.tools === undefined ? [] : parseTools(data.tools, { skill: typeof name === "string" ? name : folder, skillDir, context, problem });
  if (problems.length > 0) return { kind: "invalid", problems };

  const prefix = `${skillDir}/`;
  const files = context.fileList
    .filter((entry) => entry.startsWith(prefix))
    .map((entry) => entry.slice(prefix.length))
    .sort();
  return {
    kind: "skill",
    skill: { name: name as string, description: description as string, body, dir: path.join(context.dir, skillDir), files, tools, path: file.path },
  };
}

interface ToolScope {
  skill: string;
  /** The skill's folder, repo-relative. */
  skillDir: string;
  context: SkillContext;
  problem: (key: string, text: string) => void;
}

function parseTools(value: unknown, scope: ToolScope): SkillToolDefinition[] {
  if (!Array.isArray(value)) {
    scope.problem("tools", `expected a list of {name, description, input_schema, command} (got ${describeValue(value)})`);
    return [];
  }
  const tools: SkillToolDefinition[] = [];
  const seen = new Set<string>();
  value.forEach((entry: unknown, index) => {
    const tool = parseTool(entry, `tools[${index}]`, scope);
    if (!tool) return;
    if (seen.has(tool.name)) scope.problem(`tools[${index}].name`, `"${tool.name}" is declared twice`);
    seen.add(tool.name);
    tools.push(tool);
  });
  return tools;
}

function parseTool(entry: unknown, key: string, scope: ToolScope): SkillToolDefinition | undefined {
  const { problem } = scope;
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
    problem(key, `expected a mapping with name, description, input_schema and command (got ${describeValue(entry)})`);
    return undefined;
  }
  const fields = entry as Record<string, unknown>;
  let ok = true;
  const fail = (field: string, text: string) => {
    problem(`${key}.${field}`, text);
    ok = false;
  };
  for (const field of Object.keys(fields)) {
    const meant = TOOL_KEYS.includes(field) ? undefined : closestKey(field, TOOL_KEYS);
    if (meant !== undefined) fail(field, `unknown key (did you mean \`${meant}\`?)`);
  }
  const name = fields.name;
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    fail("name", `required: lowercase letters, digits, hyphens and underscores, 1 to 40 (got ${describeValue(name)})`);
  } else if (skillToolName(scope.skill, name).length > MAX_TOOL_NAME_CHARS) {
    fail(
      "name",
      `the model sees it as ${skillToolName(scope.skill, name)}, longer than ${MAX_TOOL_NAME_CHARS} characters; shorten the skill's or the tool's name`,
    );
  }
  const description = requiredText(fields.description, (text) => fail("description", text));
  const inputSchema = objectSchema(fields.input_schema, (text) => fail("input_schema", text));
  const command = commandPath(fields.command, scope, (text) => fail("command", text));
  if (!ok || description === undefined || inputSchema === undefined || command === undefined) return undefined;
  return { name: name as string, description, inputSchema, command };
}

function objectSchema(value: unknown, problem: (text: string) => void): SkillToolDefinition["inputSchema"] | undefined {
  if (value === undefined) return { type: "object" };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    problem(`expected a JSON Schema of an object, e.g. {type: object, properties: {…}} (got ${describeValue(value)})`);
    return undefined;
  }
  const schema = value as Record<string, unknown>;
  if (schema.type !== undefined && schema.type !== "object") {
    problem(`the input is a JSON object: \`type\` must be "object" (got ${describeValue(schema.type)})`);
    return undefined;
  }
  const wrong = schemaProblem(schema, "");
  if (wrong !== undefined) {
    problem(wrong);
    return undefined;
  }
  return { ...schema, type: "object" };
}

const JSON_TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);
const isMapping = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The first mistake in a schema's common keywords (`type`, `properties`, `required`, `items`, `enum`),
 * found here rather than as the model API's refusal of every later request once the skill is invoked.
 */
function schemaProblem(schema: Record<string, unknown>, at: string): string | undefined {
  const where = at === "" ? "" : ` at \`${at}\``;
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  const badType = types.find((type) => typeof type !== "string" || !JSON_TYPES.has(type));
  if (badType !== undefined) return `\`type\`${where} must be one of ${[...JSON_TYPES].join(", ")} (got ${describeValue(badType)})`;
  if (schema.properties !== undefined) {
    if (!isMapping(schema.properties)) return `\`properties\`${where} must be a mapping of property names to schemas (got ${describeValue(schema.properties)})`;
    for (const [name, property] of Object.entries(schema.properties)) {
      if (!isMapping(property)) return `property \`${name}\`${where} must be a schema mapping (got ${describeValue(property)})`;
      const inner = schemaProblem(property, at === "" ? name : `${at}.${name}`);
      if (inner !== undefined) return inner;
    }
  }
  if (schema.required !== undefined && (!Array.isArray(schema.required) || schema.required.some((name) => typeof name !== "string"))) {
    return `\`required\`${where} must be a list of property names (got ${describeValue(schema.required)})`;
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) return `\`enum\`${where} must be a list (got ${describeValue(schema.enum)})`;
  if (schema.items !== undefined) {
    if (!isMapping(schema.items)) return `\`items\`${where} must be a schema mapping (got ${describeValue(schema.items)})`;
    return schemaProblem(schema.items, `${at === "" ? "" : `${at}.`}items`);
  }
  return undefined;
}

/** A file of the skill's folder, named relative to it; its absolute path in the extracted tree. */
function commandPath(value: unknown, scope: ToolScope, problem: (text: string) => void): string | undefined {
  if (typeof value !== "string" || value.trim() === "") {
    problem(`required: the path of an executable file in the skill's folder, relative to it (got ${describeValue(value)})`);
    return undefined;
  }
  const segments = value.replace(/^\.\//, "").split("/");
  if (value.startsWith("/") || value.includes("\\") || segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    problem(`"${value}" must be a plain path inside the skill's folder, relative to it (no leading /, no .. or empty parts)`);
    return undefined;
  }
  const repoPath = `${scope.skillDir}/${segments.join("/")}`;
  if (!scope.context.fileList.includes(repoPath)) {
    problem(`"${value}" is not a file in ${scope.skillDir} on the default branch (symlinks are not extracted)`);
    return undefined;
  }
  if (scope.context.executable && !scope.context.executable.has(repoPath)) {
    problem(`"${value}" is not executable; commit it with its executable bit (git update-index --chmod=+x ${repoPath})`);
    return undefined;
  }
  return path.join(scope.context.dir, repoPath);
}
