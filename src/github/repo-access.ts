import type { GitHubClient, RepoRef } from "./github-client.js";
import { isAllowedBot } from "../util/is-allowed-bot.js";

/**
 * Who counts as a writer of a repository, for both questions Tackle asks: may this actor make Tackle
 * work (the gate), and do this author's words count as instructions (the thread's `trusted`). One
 * rule, read from the permission endpoint (`GET /repos/{owner}/{repo}/collaborators/{user}/permission`),
 * never from `author_association`: a writer has `permission` admin or write (the legacy field, where
 * maintain reads as write) or `role_name` admin, maintain or write. Triage, read, none and custom roles
 * not based on write are not writers. Bots are never writers by permission: only an allow-listed bot is
 * admitted and trusted (apps are not collaborators).
 */
const WRITE_PERMISSIONS: ReadonlySet<string> = new Set(["admin", "maintain", "write"]);

/** The permission endpoint's answer, as GitHubClient.getPermission gives it. */
export type RepoAccess = Awaited<ReturnType<GitHubClient["getPermission"]>>;

export function isWriter(access: RepoAccess): boolean {
  return WRITE_PERMISSIONS.has(access.permission.toLowerCase()) || WRITE_PERMISSIONS.has(access.roleName?.toLowerCase() ?? "");
}

/** The answer in words, for a refusal's reason: `read`, `read (role triage)`. */
export function describeAccess(access: RepoAccess): string {
  return access.roleName ? `${access.permission} (role ${access.roleName})` : access.permission;
}

/** A bot account: typed Bot, or a login ending in `[bot]` whatever its type says. */
export function isBotLogin(login: string, type?: string): boolean {
  return type === "Bot" || login.toLowerCase().endsWith("[bot]");
}

/** One login's access to one repository; rejects when GitHub does (the caller fails closed). */
export type AccessOf = (login: string) => Promise<RepoAccess>;

/**
 * The permission cache of one job (its admission, or its run): one request per login, shared by the
 * gate and every trust check of the thread. A rejection is cached too and never unhandled.
 */
export function createAccessCache(github: Pick<GitHubClient, "getPermission">, repo: RepoRef): AccessOf {
  const answers = new Map<string, Promise<RepoAccess>>();
  return (login) => {
    const key = login.toLowerCase();
    let answer = answers.get(key);
    if (answer === undefined) {
      answer = github.getPermission(repo, login);
      answer.catch(() => undefined);
      answers.set(key, answer);
    }
    return answer;
  };
}

/** Is `login` someone whose words may count as instructions? */
export type TrustCheck = (login: string, authorType?: string) => Promise<boolean>;

/** A writer, or an allow-listed bot; an API error means untrusted (fail closed). */
export function createTrustCheck(accessOf: AccessOf, allowedBots: readonly string[]): TrustCheck {
  return async (login, authorType) => {
    if (isBotLogin(login, authorType)) return isAllowedBot(login, allowedBots);
    return accessOf(login).then(isWriter, () => false);
  };
}
