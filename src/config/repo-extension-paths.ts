/** Where repository-provided agents and skills live, repo-relative, as git spells paths. */
export const AGENTS_DIR = ".tackle/agents";

/** Skill roots in precedence order: on a name clash the first one's skill wins. */
export const SKILL_ROOTS: readonly string[] = [".tackle/skills", ".claude/skills"];

/** Scripts the repository's hooks run, as `$TACKLE_HOOKS_DIR/<name>`: the default branch's copy, never the checkout's. */
export const HOOKS_DIR = ".tackle/hooks";

/** The trees the host extracts from the default branch's commit, in precedence order. */
export const REPO_EXTENSION_PATHS: readonly string[] = [AGENTS_DIR, ...SKILL_ROOTS, HOOKS_DIR];

/** An agent definition: a `.md` file at the top of {@link AGENTS_DIR}. */
export function isAgentFilePath(repoPath: string): boolean {
  const rest = repoPath.startsWith(`${AGENTS_DIR}/`) ? repoPath.slice(AGENTS_DIR.length + 1) : null;
  return rest !== null && !rest.includes("/") && rest.endsWith(".md") && rest.length > ".md".length;
}

/** The root and folder of a `<root>/<folder>/SKILL.md`, or null for any other path. */
export function skillFileParts(repoPath: string): { root: string; folder: string } | null {
  for (const root of SKILL_ROOTS) {
    if (!repoPath.startsWith(`${root}/`)) continue;
    const parts = repoPath.slice(root.length + 1).split("/");
    if (parts.length === 2 && parts[1] === "SKILL.md" && parts[0]) return { root, folder: parts[0] };
  }
  return null;
}

/** Whether the host must read this file's text to know the repository's agents and skills. */
export function isRepoExtensionDefinition(repoPath: string): boolean {
  return isAgentFilePath(repoPath) || skillFileParts(repoPath) !== null;
}
