/**
 * An environment for git child processes that ignores whatever the developer's shell or a
 * surrounding git hook exported. A stray GIT_DIR or GIT_INDEX_FILE (set when tests run from a
 * pre-commit hook) would otherwise point every git command at the wrong repository, and a
 * user's ~/.gitconfig (signing, url rewrites, credential helpers) would change behaviour.
 */
export function cleanGitEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith("GIT_")) continue;
    env[key] = value;
  }
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    GIT_CONFIG_NOSYSTEM: "1",
    // Never block a test on an interactive username/password prompt.
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
    ...extra,
  };
}
