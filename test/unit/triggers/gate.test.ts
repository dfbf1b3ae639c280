import { describe, expect, it } from "vitest";
import type { RepoAccess } from "../../../src/github/index.js";
import { gateTrigger, parseTrigger, type GateDeps, type Trigger } from "../../../src/triggers/index.js";
import { BOT_LOGIN, issueComment } from "./webhook-examples.js";

function commentBy(login: string, type: "User" | "Bot" = "User"): Trigger {
  const payload = issueComment("@tackle fix it");
  payload.comment.user = { ...payload.comment.user, login, type };
  payload.sender = { ...payload.sender, login, type };
  const result = parseTrigger("issue_comment", payload, {
    deliveryId: "d",
    botLogin: BOT_LOGIN,
    botName: "tackle",
    triggerLabel: "tackle",
  });
  if (result.kind !== "comment") throw new Error(`expected a comment trigger, got ${result.kind}`);
  return result;
}

function deps(answer: RepoAccess | Error, overrides: Partial<GateDeps> = {}): GateDeps & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    allowedBots: [],
    botLogin: BOT_LOGIN,
    accessOf: async (login) => {
      calls.push(login);
      if (answer instanceof Error) throw answer;
      return answer;
    },
    ...overrides,
  };
}

describe("gateTrigger", () => {
  it.each([
    { permission: "admin", roleName: "admin" },
    { permission: "write", roleName: "write" },
    { permission: "write", roleName: "maintain" },
    // the role decides too: the same rule as the thread's trust marks (isWriter)
    { permission: "read", roleName: "maintain" },
  ])("allows %j", async (answer) => {
    const gate = deps(answer);
    expect(await gateTrigger(commentBy("alice"), gate)).toEqual({ allowed: true });
    expect(gate.calls).toEqual(["alice"]);
  });

  it.each([
    { permission: "read", roleName: "read" },
    { permission: "read", roleName: "triage" },
    { permission: "none", roleName: "none" },
    { permission: "read", roleName: "security-reviewer" },
    { permission: "read" },
  ])("refuses %j with one short reply", async (answer) => {
    const result = await gateTrigger(commentBy("alice"), deps(answer));
    expect(result).toMatchObject({
      allowed: false,
      reply: "@alice, only users with write access can ask Tackle to work here.",
    });
    expect(result.allowed === false && result.reason).toContain(answer.permission);
  });

  it("fails closed when the permission API errors", async () => {
    const result = await gateTrigger(commentBy("alice"), deps(new Error("HTTP 502")));
    expect(result).toMatchObject({ allowed: false });
    expect(result.allowed === false && result.reason).toContain("HTTP 502");
    expect(result.allowed === false && result.reply).toMatch(/^@alice, /);
  });

  it("refuses bots that are not allow-listed, without a reply or a permission call", async () => {
    const gate = deps({ permission: "admin" });
    const result = await gateTrigger(commentBy("renovate[bot]", "Bot"), gate);
    expect(result).toEqual({ allowed: false, reason: "bot renovate[bot] is not in allowed_bots" });
    expect(gate.calls).toEqual([]);
  });

  it("treats a login ending in [bot] as a bot even when typed User", async () => {
    const result = await gateTrigger(commentBy("sneaky[bot]"), deps({ permission: "admin" }));
    expect(result).toMatchObject({ allowed: false });
    expect("reply" in result).toBe(false);
  });

  it("allows allow-listed bots, written with or without [bot]", async () => {
    const withSuffix = deps({ permission: "none" }, { allowedBots: ["renovate[bot]"] });
    expect(await gateTrigger(commentBy("renovate[bot]", "Bot"), withSuffix)).toEqual({ allowed: true });
    const bare = deps({ permission: "none" }, { allowedBots: ["Renovate"] });
    expect(await gateTrigger(commentBy("renovate[bot]", "Bot"), bare)).toEqual({ allowed: true });
  });

  it("never lets the bot's own events through, even allow-listed", async () => {
    const trigger = { ...commentBy("alice"), actor: { login: BOT_LOGIN, type: "Bot" as const } };
    const gate = deps({ permission: "admin" }, { allowedBots: [BOT_LOGIN] });
    expect(await gateTrigger(trigger, gate)).toEqual({ allowed: false, reason: "the bot's own event" });
    expect(gate.calls).toEqual([]);
  });

  it("logs refusals", async () => {
    const logged: unknown[] = [];
    const logger = { info: (...args: unknown[]) => logged.push(args), warn: (...args: unknown[]) => logged.push(args) };
    await gateTrigger(commentBy("alice"), deps({ permission: "read" }, { logger: logger as unknown as NonNullable<GateDeps["logger"]> }));
    expect(logged).toHaveLength(1);
  });
});
