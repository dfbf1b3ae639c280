import { TackleError } from "../errors/index.js";

/**
 * One repository on one GitHub server, as durable memory is keyed: by GitHub's numeric id, which stays
 * with the repository through renames and is never given to another. A name is not a key: GitHub frees
 * it at once on a rename or a deletion, and a new repository under it must not read the old one's memory.
 */
export interface RepoKeyParts {
  /** Lower case; may carry a port (`ghe.example.com:8443`). */
  host: string;
  id: number;
}

/** A repository's name on one server, `host/owner/repo` in lower case: what `tackle memory --repo` looks up. */
export interface RepoNameParts {
  host: string;
  owner: string;
  repo: string;
}

// Dot-separated labels, so no `..` or empty label can reach a file path; a port at most five digits.
const HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::\d{1,5})?$/;
// GitHub's own alphabet for owners and repositories; `.` and `..` alone would name directories.
const NAME = /^(?!\.{1,2}$)[a-z0-9._-]{1,100}$/;
const ID = /^[1-9]\d{0,15}$/;

/** `host/id` (`github.com/1296269`). Rejects anything that could leave its directory as a path with TackleError("invalid_input"). */
export function formatRepoKey(parts: RepoKeyParts): string {
  const host = checkedHost(parts.host, `${parts.host}/${parts.id}`);
  if (!Number.isSafeInteger(parts.id) || !ID.test(String(parts.id))) throw badKey(`${parts.host}/${parts.id}`, `"${parts.id}" is not a repository id`);
  return `${host}/${parts.id}`;
}

/** The parts of a key as `formatRepoKey` writes it; the same checks. */
export function parseRepoKey(key: string): RepoKeyParts {
  const [host = "", id = "", ...rest] = key.split("/");
  if (rest.length > 0) throw badKey(key, "it has more than two parts");
  if (!ID.test(id)) throw badKey(key, `"${id}" is not a repository id`);
  return { host: checkedHost(host, key), id: Number(id) };
}

/**
 * `owner/repo` in lower case: GitHub matches names without regard to case. Rejects names outside
 * GitHub's alphabet with TackleError("invalid_input").
 */
export function formatRepoName(parts: RepoNameParts): { host: string; fullName: string } {
  const shown = `${parts.host}/${parts.owner}/${parts.repo}`;
  const [owner, repo] = [parts.owner.toLowerCase(), parts.repo.toLowerCase()];
  const host = checkedHost(parts.host, shown);
  if (!NAME.test(owner)) throw badName(shown, `"${parts.owner}" is not an owner name (letters, digits, ".", "_" and "-")`);
  if (!NAME.test(repo)) throw badName(shown, `"${parts.repo}" is not a repository name (letters, digits, ".", "_" and "-")`);
  return { host, fullName: `${owner}/${repo}` };
}

/** The host in lower case, checked as `formatRepoKey` checks it (it becomes a directory). */
export function checkRepoHost(host: string): string {
  return checkedHost(host, host);
}

function checkedHost(value: string, shown: string): string {
  const host = value.toLowerCase();
  if (!HOST.test(host)) throw badKey(shown, `"${value}" is not a host name (letters, digits, dots and dashes, and an optional :port)`);
  return host;
}

function badKey(key: string, reason: string): TackleError {
  return new TackleError("invalid_input", `"${key}" is not a repository key host/id such as github.com/1296269: ${reason}`);
}

function badName(name: string, reason: string): TackleError {
  return new TackleError("invalid_input", `"${name}" is not a repository host/owner/name such as github.com/octo/widgets: ${reason}`);
}
