import { errorMessage } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import type { Trigger } from "./trigger.js";
import { describeAccess, isBotLogin, isWriter, type AccessOf, type RepoAccess } from "../github/index.js";
import { isAllowedBot } from "../util/is-allowed-bot.js";
import { md, mention, type SurfaceMarkdown } from "../util/surface-markdown.js";

export interface GateDeps {
  /** The actor's access to the trigger's repository: the job's one permission cache (`createAccessCache`). */
  accessOf: AccessOf;
  /** Bot logins that may trigger (e.g. `renovate[bot]`); from the repo config's `allowed_bots`. */
  allowedBots: readonly string[];
  /** The bot user, e.g. `tackle[bot]`. */
  botLogin: string;
  logger?: Pick<Logger, "info" | "warn">;
}

export type GateResult = { allowed: true } | { allowed: false; reason: string; reply?: SurfaceMarkdown };

/**
 * Decides whether the trigger's actor may make Tackle work. Users must be writers (`isWriter`, from the
 * permission endpoint, never author_association); bots are refused unless allow-listed, and an
 * allow-listed bot needs no permission check (apps are not collaborators) but never answers a question
 * (`approve`, `deny`); the bot's own events
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
  if (isBotLogin(login, actor.type)) {
    if (!isAllowedBot(login, deps.allowedBots)) return refuse(`bot ${actor.login} is not in allowed_bots`);
    // An answer to a question is a maintainer's decision: a bot may start work (renovate), never approve
    // or deny what a job asked, since it can repeat what anyone wrote.
    if (trigger.kind === "command" && (trigger.command === "approve" || trigger.command === "deny")) {
      return refuse(`bot ${actor.login} cannot answer a question; only users with write access can`);
    }
    return { allowed: true };
  }

  let access: RepoAccess;
  try {
    access = await deps.accessOf(actor.login);
  } catch (error) {
    deps.logger?.warn({ actor: actor.login, err: errorMessage(error) }, "permission check failed");
    return refuse(
      `permission check failed: ${errorMessage(error)}`,
      md`${mention(actor.login)}, I could not check your permission on this repository, so I did not start; please try again later.`,
    );
  }
  if (isWriter(access)) return { allowed: true };
  return refuse(
    `${actor.login} has ${describeAccess(access)} permission; write is required`,
    md`${mention(actor.login)}, only users with write access can ask Tackle to work here.`,
  );
}
