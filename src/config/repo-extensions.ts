/**
 * Repository-provided agents and skills, read from the default branch's commit at job start (never from
 * the checkout the agent can rewrite). The host extracts their folders into a directory it owns and
 * binds it read-only, at the same path, inside the sandbox.
 */

/** A custom subagent type, from `.tackle/agents/<file>.md`. */
export interface AgentDefinition {
  /** Front matter `name` (the `subagent_type` the model passes). */
  name: string;
  description: string;
  /** Front matter `tools`: the tools it gets, each one a subagent may have. Absent: the general-purpose set. */
  tools?: string[];
  /** Front matter `model`, within the operator's allowed models. Absent: the job's model. */
  model?: string;
  /** Front matter `max_turns`. */
  maxTurns?: number;
  /** The file's body: the subagent's instructions. */
  prompt: string;
  /** Repository path of the file, for messages. */
  path: string;
}

/** A tool a skill declares (front matter `tools:`), offered as `skill__<skill>__<tool>` once the skill is invoked. */
export interface SkillToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the input (an object schema). */
  inputSchema: { type: "object"; [key: string]: unknown };
  /** Absolute path of the command in the skill's extracted folder; it gets the input as JSON on stdin. */
  command: string;
}

/** A skill: a folder with a `SKILL.md` under `.tackle/skills/` or `.claude/skills/`. */
export interface SkillDefinition {
  name: string;
  description: string;
  /** SKILL.md's body (without the front matter). */
  body: string;
  /** Absolute path of the skill's extracted folder (read-only for the agent). */
  dir: string;
  /** Files of the folder, relative to `dir`, sorted. */
  files: string[];
  tools: SkillToolDefinition[];
  /** Repository path of the SKILL.md, for messages. */
  path: string;
}

export interface RepoExtensions {
  agents: AgentDefinition[];
  skills: SkillDefinition[];
  /** Problems that make the files unusable, each naming its file and key (a config error for the job). */
  problems: string[];
}

export const NO_REPO_EXTENSIONS: RepoExtensions = { agents: [], skills: [], problems: [] };
