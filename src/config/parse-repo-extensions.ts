import { parseAgentDefinition } from "./parse-agent-definition.js";
import { parseSkillDefinition, skillToolName } from "./parse-skill-definition.js";
import { isAgentFilePath, SKILL_ROOTS, skillFileParts } from "./repo-extension-paths.js";
import type { AgentDefinition, RepoExtensions, SkillDefinition } from "./repo-extensions.js";

export interface ParseRepoExtensionsOptions {
  /** Absolute path of the extraction root; a skill's `dir` and its tools' commands are under it. */
  dir: string;
  /** Every extracted file, repo-relative (a skill's `files` and its tools' commands come from it). */
  fileList: readonly string[];
  /** Repo-relative paths of the executable files: a tool's command must be one. @defaultValue not checked */
  executable?: ReadonlySet<string>;
  /** The tools a subagent may have; an agent's `tools` must be among them. */
  subagentTools: readonly string[];
}

export interface ParsedRepoExtensions extends RepoExtensions {
  /** What was left out without making the files unusable (a skill shadowed by an earlier one, a note with no front matter). */
  warnings: string[];
}

/**
 * The repository's agents (`.tackle/agents/*.md`) and skills (`<root>/<folder>/SKILL.md`) from the
 * texts of those files; other paths in `files` are ignored. Pure: every problem is reported at once,
 * each naming its file and key. Agents come sorted by name, skills too; of two skills with one name
 * the first path wins (`.tackle/skills` before `.claude/skills`) and the other is a warning.
 */
export function parseRepoExtensions(files: ReadonlyArray<{ path: string; content: string }>, options: ParseRepoExtensionsOptions): ParsedRepoExtensions {
  const problems: string[] = [];
  const warnings: string[] = [];
  const agents = parseAgents(
    files.filter((file) => isAgentFilePath(file.path)),
    options,
    problems,
    warnings,
  );
  const skills = parseSkills(files, options, problems, warnings);
  return { agents, skills, problems, warnings };
}

function byPath<T extends { path: string }>(a: T, b: T): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function parseAgents(
  files: ReadonlyArray<{ path: string; content: string }>,
  options: ParseRepoExtensionsOptions,
  problems: string[],
  warnings: string[],
): AgentDefinition[] {
  const agents = new Map<string, AgentDefinition>();
  for (const file of [...files].sort(byPath)) {
    const result = parseAgentDefinition(file, options.subagentTools);
    if (result.kind === "skipped") warnings.push(result.warning);
    else if (result.kind === "invalid") problems.push(...result.problems);
    else {
      const earlier = agents.get(result.agent.name);
      if (earlier) problems.push(`${file.path}: \`name\`: "${result.agent.name}" is already the name of ${earlier.path}; agent names must be unique`);
      else agents.set(result.agent.name, result.agent);
    }
  }
  return [...agents.values()].sort(byName);
}

function parseSkills(
  files: ReadonlyArray<{ path: string; content: string }>,
  options: ParseRepoExtensionsOptions,
  problems: string[],
  warnings: string[],
): SkillDefinition[] {
  const candidates = files
    .map((file) => ({ file, parts: skillFileParts(file.path) }))
    .filter((entry): entry is { file: { path: string; content: string }; parts: { root: string; folder: string } } => entry.parts !== null)
    // Root precedence first, then path order within a root.
    .sort((a, b) => SKILL_ROOTS.indexOf(a.parts.root) - SKILL_ROOTS.indexOf(b.parts.root) || byPath(a.file, b.file));
  const skills = new Map<string, SkillDefinition>();
  const toolOwners = new Map<string, string>();
  for (const { file, parts } of candidates) {
    const result = parseSkillDefinition(file, parts.folder, { dir: options.dir, fileList: options.fileList, executable: options.executable });
    if (result.kind === "invalid") {
      problems.push(...result.problems);
      continue;
    }
    const { skill } = result;
    const earlier = skills.get(skill.name);
    if (earlier) {
      warnings.push(`${file.path}: skill "${skill.name}" is left out; ${earlier.path} has the same name and comes first`);
      continue;
    }
    skills.set(skill.name, skill);
    // Skill a's tool b__c and skill a__b's tool c would both be skill__a__b__c; the model could call only one.
    for (const tool of skill.tools) {
      const full = skillToolName(skill.name, tool.name);
      const owner = toolOwners.get(full);
      if (owner) problems.push(`${file.path}: \`tools\`: ${full} is also the name of a tool of ${owner}; rename one`);
      else toolOwners.set(full, file.path);
    }
  }
  return [...skills.values()].sort(byName);
}
