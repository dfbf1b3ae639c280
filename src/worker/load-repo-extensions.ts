import { parseRepoExtensions, type ParsedRepoExtensions } from "../config/parse-repo-extensions.js";
import { isRepoExtensionDefinition } from "../config/repo-extension-paths.js";
import { readExtensionFiles } from "../workspace/read-extension-files.js";
import type { Workspace } from "../workspace/workspace.js";

/**
 * The repository's agents and skills for one job, from what the host extracted of the default
 * branch's commit (`Workspace.extensionFiles`; null: none). `subagentTools` are the tools a custom
 * agent may list. Problems make the files unusable (a config error for the job); warnings do not.
 */
export async function loadRepoExtensions(extensionFiles: Workspace["extensionFiles"], subagentTools: readonly string[]): Promise<ParsedRepoExtensions> {
  if (extensionFiles === null) return { agents: [], skills: [], problems: [], warnings: [] };
  const read = await readExtensionFiles(extensionFiles.dir, isRepoExtensionDefinition);
  const parsed = parseRepoExtensions(read.files, { dir: extensionFiles.dir, fileList: read.fileList, executable: read.executable, subagentTools });
  return { ...parsed, problems: [...read.problems, ...parsed.problems] };
}
