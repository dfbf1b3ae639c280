import { parseFrontMatter } from "./parse-front-matter.js";
import { closestKey, describeValue } from "./problem-text.js";
import type { AgentDefinition } from "./repo-extensions.js";

/** The `subagent_type`s Tackle defines itself; a repository's agent may not take their names. */
export const BUILT_IN_SUBAGENT_TYPES: readonly string[] = ["general-purpose", "explore", "shell"];

/** @defaultValue the most turns a custom agent may set with `max_turns` */
export const MAX_AGENT_TURNS = 200;
/** Descriptions are listed in the Task tool's description, sent with every request: kept short. */
export const MAX_DESCRIPTION_CHARS = 1024;

const AGENT_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const AGENT_KEYS = ["name", "description", "tools", "model", "max_turns"];

export type AgentFileResult =
  | { kind: "agent"; agent: AgentDefinition }
  /** Not an agent definition at all (no front matter): skipped with a warning. */
  | { kind: "skipped"; warning: string }
  | { kind: "invalid"; problems: string[] };

/**
 * One `.tackle/agents/<file>.md`. Every problem is named `<path>: \`<key>\`: …`. Keys Tackle does not
 * know are ignored (files written for other tools carry their own), except near-misses of its own
 * (`maxTurns`, `tool`), which would otherwise be silently lost.
 */
export function parseAgentDefinition(file: { path: string; content: string }, subagentTools: readonly string[]): AgentFileResult {
  const front = parseFrontMatter(file.content);
  if (front.kind === "none") return { kind: "skipped", warning: `${file.path}: skipped, it has no front matter (--- name, description --- at the top)` };
  if (front.kind === "invalid") return { kind: "invalid", problems: [`${file.path}: ${front.problem}`] };
  const { data, body } = front;
  const problems: string[] = [];
  const problem = (key: string, text: string) => problems.push(`${file.path}: \`${key}\`: ${text}`);

  for (const key of Object.keys(data)) {
    const meant = AGENT_KEYS.includes(key) ? undefined : closestKey(key, AGENT_KEYS);
    if (meant !== undefined) problem(key, `unknown key (did you mean \`${meant}\`?)`);
  }
  const name = data.name;
  if (typeof name !== "string" || !AGENT_NAME.test(name)) {
    problem("name", `required: lowercase letters, digits and hyphens, at most 64, starting with a letter or digit (got ${describeValue(name)})`);
  } else if (BUILT_IN_SUBAGENT_TYPES.includes(name)) {
    problem("name", `"${name}" is a built-in subagent type (${BUILT_IN_SUBAGENT_TYPES.join(", ")}); choose another name`);
  }
  const description = requiredText(data.description, (text) => problem("description", text));
  const tools = data.tools === undefined ? undefined : toolList(data.tools, subagentTools, (text) => problem("tools", text));
  const model = data.model;
  if (model !== undefined && (typeof model !== "string" || model.trim() === "")) problem("model", `expected a model name (got ${describeValue(model)})`);
  const maxTurns = data.max_turns;
  if (maxTurns !== undefined && (typeof maxTurns !== "number" || !Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > MAX_AGENT_TURNS)) {
    problem("max_turns", `expected a whole number from 1 to ${MAX_AGENT_TURNS} (got ${describeValue(maxTurns)})`);
  }
  if (body === "") problems.push(`${file.path}: the file has no instructions after its front matter`);
  if (problems.length > 0) return { kind: "invalid", problems };

  const agent: AgentDefinition = { name: name as string, description: description as string, prompt: body, path: file.path };
  if (tools !== undefined) agent.tools = tools;
  if (typeof model === "string") agent.model = model.trim();
  if (typeof maxTurns === "number") agent.maxTurns = maxTurns;
  return { kind: "agent", agent };
}

/** A required, non-empty, single-paragraph-sized text; undefined (and a problem) otherwise. */
export function requiredText(value: unknown, problem: (text: string) => void): string | undefined {
  if (typeof value !== "string" || value.trim() === "") {
    problem(`required: a short text saying when to use it (got ${describeValue(value)})`);
    return undefined;
  }
  const text = value.trim();
  if (text.length > MAX_DESCRIPTION_CHARS) {
    problem(`at most ${MAX_DESCRIPTION_CHARS} characters (got ${text.length}); it is sent with every request`);
    return undefined;
  }
  return text;
}

/** `tools` as a list or a comma-separated string; each one a tool a subagent may have. */
function toolList(value: unknown, subagentTools: readonly string[], problem: (text: string) => void): string[] | undefined {
  const items = typeof value === "string" ? value.split(",").map((item) => item.trim()) : value;
  if (!Array.isArray(items) || !items.every((item): item is string => typeof item === "string")) {
    problem(`expected a list of tool names or a comma-separated string (got ${describeValue(value)})`);
    return undefined;
  }
  const names = [...new Set(items.map((item) => item.trim()).filter((item) => item !== ""))];
  const refused = names.filter((item) => !subagentTools.includes(item));
  if (refused.length > 0) {
    const which = refused.map((item) => `"${item}"`).join(", ");
    problem(`${which} ${refused.length === 1 ? "is not a tool" : "are not tools"} a subagent may have; subagents may have: ${subagentTools.join(", ")}`);
    return undefined;
  }
  return names;
}
