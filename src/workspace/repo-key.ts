import { TackleError } from "../errors/index.js";

/** One repository on one GitHub server: what durable memory is keyed by. */
export interface RepoKeyParts {
  /** Lower case; may carry a port (`ghe.example.com:8443`). */
  host: string;
  owner: string;
  repo: string;
}

// Dot-separated labels, so no `..` or empty label can reach a file path; a port at most five digits.
const HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::\d{1,5})?$/;
// GitHub's own alphabet for owners and repositories; `.` and `..` alone would name directories.
const NAME = /^(?!\.{1,2}$)[a-z0-9._-]{1,100}$/;

/**
 * `host/owner/repo`, in lower case: GitHub matches owners and repositories without regard to case,
 * so `Octo/Widgets` and `octo/widgets` share one memory. Rejects anything that could leave its
 * directory when the key becomes a path (`..`, slashes, odd characters) with TackleError("invalid_input").
 */
export function formatRepoKey(parts: RepoKeyParts): string {
  const { host, owner, repo } = checkedParts(parts, `${parts.host}/${parts.owner}/${parts.repo}`);
  return `${host}/${owner}/${repo}`;
}

/** The parts of a key as `formatRepoKey` writes it, in lower case; the same checks. */
export function parseRepoKey(key: string): RepoKeyParts {
  const [host = "", owner = "", repo = "", ...rest] = key.split("/");
  if (rest.length > 0) throw badKey(key, "it has more than three parts");
  return checkedParts({ host, owner, repo }, key);
}

function checkedParts(parts: RepoKeyParts, shown: string): RepoKeyParts {
  const [host, owner, repo] = [parts.host.toLowerCase(), parts.owner.toLowerCase(), parts.repo.toLowerCase()];
  if (!HOST.test(host)) throw badKey(shown, `"${parts.host}" is not a host name (letters, digits, dots and dashes, and an optional :port)`);
  if (!NAME.test(owner)) throw badKey(shown, `"${parts.owner}" is not an owner name (letters, digits, ".", "_" and "-")`);
  if (!NAME.test(repo)) throw badKey(shown, `"${parts.repo}" is not a repository name (letters, digits, ".", "_" and "-")`);
  return { host, owner, repo };
}

function badKey(key: string, reason: string): TackleError {
  return new TackleError("invalid_input", `"${key}" is not a repository key host/owner/repo such as github.com/octo/widgets: ${reason}`);
}
