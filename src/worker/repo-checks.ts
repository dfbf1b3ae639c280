// The checks every job makes of the repository's own files and settings, whatever its source: a server
// or Action job (the default branch on GitHub) or a local run (HEAD of the user's repository). Both
// call these, so a check added here applies to both.
import type { WebPort } from "../agent/ports.js";
import { SUBAGENT_TOOL_NAMES } from "../agent/subagent-types.js";
import { disallowedAgentModels, type ModelSettings, type RepoConfig } from "../config/index.js";
import type { ParsedRepoExtensions } from "../config/parse-repo-extensions.js";
import type { WebFetchCache } from "../net/create-web-fetch-cache.js";
import { createWebFetcher, isWebFetchOff } from "../net/index.js";
import type { Workspace } from "../workspace/index.js";
import { loadRepoExtensions } from "./load-repo-extensions.js";

/** The instruction files read at the repository's base, in the order the prompt gives them. */
export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md"] as const;

/** The instruction files that exist, from what the source read of each (null or undefined: absent). */
export function instructionFilesOf(contents: ReadonlyArray<string | null | undefined>): Array<{ path: string; content: string }> {
  return INSTRUCTION_FILES.flatMap((path, i) => {
    const content = contents[i];
    return content == null ? [] : [{ path, content }];
  });
}

/**
 * The repository's agents and skills (from what the host extracted of the base commit), with the
 * problems that make them unusable: their own, and an agent naming a model the operator does not allow.
 */
export async function checkRepoExtensions(workspace: Pick<Workspace, "extensionFiles">, models: ModelSettings): Promise<ParsedRepoExtensions> {
  const extensions = await loadRepoExtensions(workspace.extensionFiles, SUBAGENT_TOOL_NAMES);
  return { ...extensions, problems: [...extensions.problems, ...disallowedAgentModels(extensions.agents, models)] };
}

/**
 * WebFetch for the job, or undefined when it is off: the operator's `TACKLE_FETCH_ALLOW` (undefined:
 * not offered by this runner; null: unset) narrowed by the repository's `web_fetch.allow`.
 */
export function webFetcherFor(options: {
  operator: { allow: readonly string[] | null; cache?: WebFetchCache | undefined } | undefined;
  config: Pick<RepoConfig, "web_fetch">;
  signal: AbortSignal;
}): WebPort | undefined {
  const { operator, config, signal } = options;
  if (operator === undefined || isWebFetchOff(operator.allow, config.web_fetch.allow)) return undefined;
  return createWebFetcher({
    allow: operator.allow,
    repoAllow: config.web_fetch.allow,
    signal,
    ...(operator.cache === undefined ? {} : { cache: operator.cache }),
  });
}

/** What the agent left uncommitted, committed so no work is lost; whether there was any. */
export async function commitLeftovers(workspace: Pick<Workspace, "git">, issueNumber?: number): Promise<boolean> {
  if ((await workspace.git.status()).length === 0) return false;
  const about = issueNumber === undefined ? "" : ` (#${issueNumber})`;
  await workspace.git.commit(`WIP: changes left uncommitted by the agent${about}`);
  return true;
}
