// With a personal access token, the Action's replies come back as a user's comments: none of them may
// read as a trigger, whatever the bot is called.
import { describe, expect, it } from "vitest";
import { actionCommandReply } from "../../../src/main/action-command-reply.js";
import { COMMAND_NAMES } from "../../../src/triggers/parse-command.js";
import { parseCommand } from "../../../src/triggers/index.js";

describe("actionCommandReply", () => {
  for (const botName of ["tackle", "acme-bot"]) {
    for (const command of [...COMMAND_NAMES, "unknown" as const]) {
      it(`the reply to /${botName} ${command} holds no trigger`, () => {
        const reply = actionCommandReply(command, botName);
        expect(reply).toContain(botName);
        expect(parseCommand(reply, botName)).toEqual({ kind: "none" });
      });
    }
  }

  it("still tells people to mention the bot, as code", () => {
    expect(actionCommandReply("retry", "tackle")).toContain("mention `@tackle` again");
    expect(actionCommandReply("deny", "tackle")).toContain("Mention `@tackle` again");
  });
});
