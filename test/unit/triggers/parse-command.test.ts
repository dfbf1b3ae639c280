import { describe, expect, it } from "vitest";
import { helpText, mentionsBot, parseCommand } from "../../../src/triggers/index.js";

describe("whole-word mentions", () => {
  it.each([
    "@tackle fix it",
    "hey @tackle, fix it",
    "(@tackle) fix it",
    "thanks @tackle.",
    "@Tackle fix it",
    "cc @tackle",
    "@tackle[bot] fix it",
    "first line\n@tackle fix it",
  ])("counts %j", (body) => {
    expect(mentionsBot(body, "tackle")).toBe(true);
  });

  it.each([
    "@tackle-bot fix it",
    "@tackler fix it",
    "foo@tackle.com",
    "mail @tackle.com",
    "@tackle_x",
    "@tackle/core is a package",
    "see src/tackle/x.ts",
    "use `@tackle` to start",
    "```\n@tackle fix it\n```",
    "> @tackle fix it\n\nquoted above",
    "<!-- @tackle fix it -->",
    "please /tackle this",
    "no mention",
  ])("does not count %j", (body) => {
    expect(mentionsBot(body, "tackle")).toBe(false);
  });

  it("accepts a bot name given as @name or name[bot]", () => {
    expect(mentionsBot("@tackle go", "@tackle")).toBe(true);
    expect(mentionsBot("@tackle go", "tackle[bot]")).toBe(true);
  });
});

describe("parseCommand", () => {
  it("reads the first word after a line-start invocation as the command", () => {
    expect(parseCommand("/tackle stop", "tackle")).toEqual({ kind: "command", command: "stop", word: "stop", args: "" });
    expect(parseCommand("@tackle RETRY", "tackle")).toMatchObject({ kind: "command", command: "retry" });
    expect(parseCommand("\n  \n   /tackle approve", "tackle")).toMatchObject({ kind: "command", command: "approve" });
    expect(parseCommand("/tackle deny\nit deletes data", "tackle")).toEqual({
      kind: "command",
      command: "deny",
      word: "deny",
      args: "it deletes data",
    });
    expect(parseCommand("@tackle: help", "tackle")).toMatchObject({ kind: "command", command: "help" });
  });

  it("takes a command only where it starts the comment; further down it gets the help text, never a run or a task", () => {
    expect(parseCommand("LGTM\n/tackle approve", "tackle")).toEqual({ kind: "unknown_command", word: "approve" });
    expect(parseCommand("Thanks!\n\n@tackle stop", "tackle")).toEqual({ kind: "unknown_command", word: "stop" });
    // Four spaces make it code, not a command at all.
    expect(parseCommand("    /tackle approve", "tackle")).toEqual({ kind: "none" });
    // A task may still be asked anywhere in the writer's prose.
    expect(parseCommand("Thanks!\n\n@tackle fix the typo", "tackle")).toEqual({ kind: "task", instructions: "Thanks!\n\nfix the typo" });
  });

  it("does not read a command out of the middle of a sentence", () => {
    expect(parseCommand("can @tackle approve its own PRs?", "tackle")).toEqual({
      kind: "task",
      instructions: "can tackle approve its own PRs?",
    });
  });

  it("does not count code before a mention as the start of the line", () => {
    expect(parseCommand("`x` @tackle stop", "tackle")).toEqual({ kind: "task", instructions: "`x` tackle stop" });
  });

  it("stays linear on hostile input", () => {
    const hostile = [`${" ".repeat(60_000)}@tackle go`, "<!--".repeat(15_000), "@tackle ".repeat(8_000)];
    const started = performance.now();
    for (const text of hostile) parseCommand(text, "tackle");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("needs the whole command word", () => {
    expect(parseCommand("/tackle stopping the build is bad", "tackle")).toMatchObject({ kind: "task" });
  });

  it("reports a lone unknown word after a slash as an unknown command", () => {
    expect(parseCommand("/tackle stpo", "tackle")).toEqual({ kind: "unknown_command", word: "stpo" });
    expect(parseCommand("/tackle Halp", "tackle")).toEqual({ kind: "unknown_command", word: "halp" });
  });

  it("treats a mention with one word as a task, and free text after a slash as a task", () => {
    expect(parseCommand("@tackle refactor", "tackle")).toEqual({ kind: "task", instructions: "refactor" });
    expect(parseCommand("/tackle fix the tests", "tackle")).toEqual({ kind: "task", instructions: "fix the tests" });
  });

  it("removes the invocation and trims; a bare invocation is a task without instructions", () => {
    expect(parseCommand("  @tackle,  please fix #12  \n", "tackle")).toEqual({
      kind: "task",
      instructions: "please fix #12",
    });
    expect(parseCommand("/tackle", "tackle")).toEqual({ kind: "task", instructions: "" });
    expect(parseCommand("@tackle", "tackle")).toEqual({ kind: "task", instructions: "" });
  });

  it("keeps code as written, mentions in code included", () => {
    const body = "@tackle make this pass:\n```ts\nexpect(x).toBe(1) // @tackle\n```";
    expect(parseCommand(body, "tackle")).toEqual({
      kind: "task",
      instructions: "make this pass:\n```ts\nexpect(x).toBe(1) // @tackle\n```",
    });
  });

  it("returns none when there is no invocation", () => {
    expect(parseCommand("just a comment", "tackle")).toEqual({ kind: "none" });
  });

  it("uses the configured name", () => {
    expect(parseCommand("/helper stop", "helper")).toMatchObject({ kind: "command", command: "stop" });
    expect(parseCommand("/tackle stop", "helper")).toEqual({ kind: "none" });
  });
});

describe("helpText", () => {
  it("lists every command under the bot's name", () => {
    const text = helpText("tackle");
    for (const command of ["stop", "retry", "approve", "deny", "help"]) expect(text).toContain(`/tackle ${command}`);
    expect(helpText("helper")).toContain("/helper stop");
  });
});
