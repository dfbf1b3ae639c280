import { errorMessage } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import type { Trigger } from "./trigger.js";
import { isAllowedBot } from "../util/is-allowed-bot.js";
import { md, mention, type SurfaceMarkdown } from "../util/surface-markdown.js";

/** The REST permission endpoint's answer (`GET /repos/{owner}/{repo}/collaborators/{user}/permission`). */
export interface RepoPermission {
  /** Legacy field: `admin`, `write`, `read` or `none`; maintain reads as `write`, triage as `read`. */
  permission: string;
  role_name?: string | undefined;
}

export interface GateDeps {
  getPermission(owner: string, repo: string, user: string): Promise<RepoPermission>;
  /** Bot logins that may trigger (e.g. `renovate[bot]`); from the repo config's `allowed_bots`. */
  allowedBots: readonly string[];
  /** The bot user, e.g. `tackle[bot]`. */
  botLogin: string;
  logger?: Pick<Logger, "info" | "warn">;
}

export type GateResult = { allowed: true } | { allowed: false; reason: string; reply?: SurfaceMarkdown };

const WRITE_PERMISSIONS = new Set(["admin", "maintain", "write"]);

/**
 * Decides whether the trigger's actor may make Tackle work. Users need write or admin through the
 * permission endpoint (never author_association); bots are refused unless allow-listed, and an
 * allow-listed bot needs no permission check (apps are not collaborators); the bot's own events
 * never pass. An API error refuses: fail closed. Refusals are logged; `reply` is the one short
 * sentence the caller may post, and only humans get one.
 */
export async function gateTrigger(trigger: Trigger, deps: GateDeps): Promise<GateResult> {
  const { actor, repo } = trigger;
  const login = actor.login.toLowerCase();
  const refuse = (reason: string, reply?: SurfaceMarkdown): GateResult => {
    deps.logger?.info({ actor: actor.login, repo: `${repo.owner}/${repo.name}`, reason }, "trigger refused");
    return reply === undefined ? { allowed: false, reason } : { allowed: false, reason, reply };
  };

  if (login === deps.botLogin.toLowerCase()) return refuse("the bot's own event");
  if (isBot(actor.type, login)) {
    return isAllowedBot(login, deps.allowedBots) ? { allowed: true } : refuse(`bot ${actor.login} is not in allowed_bots`);
  }

  let access: RepoPermission;
  try {
    access = await deps.getPermission(repo.owner, repo.name, actor.login);
  } catch (error) {
    deps.logger?.warn({ actor: actor.login, err: errorMessage(error) }, "permission check failed");
    return refuse(
      `permission check failed: ${errorMessage(error)}`,
      md`${mention(actor.login)}, I could not check your permission on this repository, so I did not start; please try again later.`,
    );
  }
  if (WRITE_PERMISSIONS.has(access.permission.toLowerCase())) return { allowed: true };
  const role = access.role_name ? ` (role ${access.role_name})` : "";
  return refuse(
    `${actor.login} has ${access.permission}${role} permission; write is required`,
    md`${mention(actor.login)}, only users with write access can ask Tackle to work here.`,
  );
}

function isBot(type: "User" | "Bot", login: string): boolean {
  return type === "Bot" || login.endsWith("[bot]");
}
