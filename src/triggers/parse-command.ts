import { blankRanges, codeRanges } from "./markdown-code.js";

export const COMMAND_NAMES = ["stop", "retry", "approve", "deny", "help"] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/**
 * What a comment asks of the bot.
 * - `command`: a line starting with `/<bot> <command>` or `@<bot> <command>`; only the five command
 *   words count, and only at the start of a line, so "can @tackle approve this?" approves nothing.
 * - `unknown_command`: `/<bot> <word>` and nothing else, with a word that is not a command (a typo,
 *   most likely); the caller replies with the help text.
 * - `task`: any other whole-word `@<bot>` mention, or a line starting with `/<bot>`; `instructions`
 *   is the text with the invocation removed.
 * Mentions inside code, block quotes and HTML comments do not count: quoting an earlier request
 * must not start a second job.
 */
export type Invocation =
  | { kind: "none" }
  | { kind: "command"; command: CommandName; word: string; args: string }
  | { kind: "unknown_command"; word: string }
  | { kind: "task"; instructions: string };

interface Token {
  start: number;
  end: number;
  slash: boolean;
  /** Only whitespace between the start of its line and the token. */
  lineStart: boolean;
}

export function parseCommand(text: string, botName: string): Invocation {
  const name = normalizeBotName(botName);
  const tokens = findTokens(maskNonProse(text), name);
  const first = tokens[0];
  if (first === undefined) return { kind: "none" };

  const leading = tokens.find((token) => token.lineStart);
  if (leading !== undefined) {
    const match = /^[ \t]*[,:]?[ \t]*([A-Za-z][\w-]*)/.exec(text.slice(leading.end));
    const word = match?.[1]?.toLowerCase();
    if (match !== null && word !== undefined && isCommandName(word)) {
      const args = text.slice(leading.end + match[0].length).trim();
      return { kind: "command", command: word, word, args };
    }
  }

  const instructions = removeTokens(text, tokens, name);
  if (first.slash && tokens.length === 1 && /^[A-Za-z][\w-]*$/.test(instructions)) {
    return { kind: "unknown_command", word: instructions.toLowerCase() };
  }
  return { kind: "task", instructions };
}

/** Whether the text invokes the bot at all (mention, slash command or command). */
export function mentionsBot(text: string, botName: string): boolean {
  return parseCommand(text, botName).kind !== "none";
}

export function isCommandName(word: string): word is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(word);
}

/** The reply to `/<bot> help` and to unknown commands. */
export function helpText(botName: string): string {
  const name = normalizeBotName(botName);
  return [
    `**${name} commands**`,
    "",
    `- \`@${name} <what to do>\` or \`/${name} <what to do>\`: start work on this issue or pull request, with these instructions.`,
    `- \`/${name} stop\`: cancel the running job.`,
    `- \`/${name} retry\`: run the last job again.`,
    `- \`/${name} approve\` / \`/${name} deny\`: answer the question ${name} asked before a risky step.`,
    `- \`/${name} help\`: show this message.`,
    "",
    `Assigning the issue to the bot or adding the trigger label also starts work. Only users with write access can ask ${name} to work.`,
  ].join("\n");
}

export function normalizeBotName(botName: string): string {
  return botName.trim().replace(/^[@/]/, "").replace(/\[bot\]$/i, "");
}

function findTokens(masked: string, name: string): Token[] {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // Whole word: not `foo@tackle.com`, `@tackle-bot`, `@tackle/pkg` or `src/tackle`.
  const after = String.raw`(?![\w\-/]|\.\w)`;
  const pattern = new RegExp(
    String.raw`(?<![\w.+\-/@])@${escaped}(?:\[bot\])?${after}|(?<=^[ \t]*)/${escaped}${after}`,
    "gim",
  );
  const tokens: Token[] = [];
  for (const match of masked.matchAll(pattern)) {
    const start = match.index;
    const lineBegin = masked.lastIndexOf("\n", start - 1) + 1;
    tokens.push({
      start,
      end: start + match[0].length,
      slash: match[0].startsWith("/"),
      lineStart: masked.slice(lineBegin, start).trim() === "",
    });
  }
  return tokens;
}

/**
 * An invocation at the start of a line is dropped with the punctuation after it; one inside a
 * sentence becomes the plain name, so "thanks @tackle, now fix X" still reads.
 */
function removeTokens(text: string, tokens: readonly Token[], name: string): string {
  let result = text;
  for (const token of [...tokens].reverse()) {
    if (token.lineStart) {
      const trailing = /^[ \t]*[,:]?[ \t]*/.exec(result.slice(token.end))?.[0] ?? "";
      result = result.slice(0, token.start) + result.slice(token.end + trailing.length);
    } else {
      result = result.slice(0, token.start) + name + result.slice(token.end);
    }
  }
  return result.trim();
}

/** Blanks code, quotes and HTML comments, keeping every offset and line break. */
function maskNonProse(text: string): string {
  const blank = (part: string) => part.replace(/[^\n]/g, " ");
  return blankRanges(text, codeRanges(text))
    .replace(/<!--[\s\S]*?(?:-->|$)/g, blank)
    .replace(/^[ \t]{0,3}>.*$/gm, blank);
}
