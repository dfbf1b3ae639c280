import { defaultRepoConfig, parseRepoConfig, REPO_CONFIG_PATH, type RepoConfig } from "../config/index.js";
import { errorMessage } from "../errors/index.js";
import type { GitHubClient, RepoRef } from "../github/index.js";
import type { Logger } from "../logging/logger.js";

/**
 * The repo's trigger settings from `.github/tackle.yml` on the default branch (never a PR head). An
 * invalid file reads as the defaults, so the job still runs and posts the comment naming each bad
 * key. When the file cannot be read, a trigger goes on with the defaults (processJob reads it again
 * and fails visibly); an event that only the settings could make a trigger is dropped (null).
 */
export async function readTriggerConfig(github: GitHubClient, repo: RepoRef, isTriggerAnyway: boolean, log: Logger): Promise<RepoConfig | null> {
  let text: string | null;
  try {
    text = await github.getFile(repo, REPO_CONFIG_PATH);
  } catch (error) {
    log.warn({ err: errorMessage(error) }, `could not read ${REPO_CONFIG_PATH}`);
    return isTriggerAnyway ? defaultRepoConfig() : null;
  }
  const parsed = parseRepoConfig(text);
  if (parsed.ok) return parsed.config;
  // The job's reply names them; the log of every event keeps a few (a file may have thousands).
  log.info({ problems: parsed.problems.slice(0, 20), problemCount: parsed.problems.length }, `invalid ${REPO_CONFIG_PATH}; triggers use the defaults`);
  return defaultRepoConfig();
}
