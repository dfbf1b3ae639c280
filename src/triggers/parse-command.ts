import { code, inert, joinMarkdown, md, type SurfaceMarkdown } from "../util/surface-markdown.js";
import { maskNonProse, normalizeLineEnds } from "./writer-prose.js";

export const COMMAND_NAMES = ["stop", "retry", "approve", "deny", "help"] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/**
 * What a comment asks of the bot.
 * - `command`: `/<bot> <command>` or `@<bot> <command>` starting the comment; only the five command
 *   words count, and only there, so "can @tackle approve this?" approves nothing, and neither does
 *   a command further down (it gets the help text).
 * - `unknown_command`: `/<bot> <word>` and nothing else, with a word that is not a command (a typo,
 *   most likely); the caller replies with the help text.
 * - `task`: any other whole-word `@<bot>` mention, or a line starting with `/<bot>`; `instructions`
 *   is the text with the invocation removed.
 * Mentions inside code, block quotes and HTML comments do not count (writer-prose.ts): quoting an
 * earlier request must not start a second job.
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

export function parseCommand(body: string, botName: string): Invocation {
  const name = normalizeBotName(botName);
  // Lines end where GitHub ends them (a lone `\r` too), for the prose rule and the command's line alike.
  const text = normalizeLineEnds(body);
  const tokens = findTokens(text, maskNonProse(text), name);
  const first = tokens[0];
  if (first === undefined) return { kind: "none" };

  const leading = tokens.find((token) => token.lineStart);
  if (leading !== undefined) {
    const match = /^[ \t]*[,:]?[ \t]*([A-Za-z][\w-]*)/.exec(text.slice(leading.end, leading.end + 200));
    const word = match?.[1]?.toLowerCase();
    if (match !== null && word !== undefined && isCommandName(word)) {
      // A command counts only where it starts the comment: nothing before it can open a quote, code
      // or hidden HTML around it, whatever any Markdown reading gets wrong. Anywhere else it is
      // answered with the help text (which says so), never run and never taken as a task.
      if (!startsText(text, leading.start)) return { kind: "unknown_command", word };
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

/** Whether only blank lines and spaces or tabs come before `at` (the start of the token). */
function startsText(text: string, at: number): boolean {
  return /^[ \t\n]*$/.test(text.slice(0, at)) && /^[ \t]{0,3}$/.test(text.slice(text.lastIndexOf("\n", at - 1) + 1, at));
}

/** Whether the text invokes the bot at all (mention, slash command or command). */
export function mentionsBot(text: string, botName: string): boolean {
  return parseCommand(text, botName).kind !== "none";
}

export function isCommandName(word: string): word is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(word);
}

/** The reply to `/<bot> help` and to unknown commands. */
export function helpText(botName: string): SurfaceMarkdown {
  const raw = normalizeBotName(botName);
  // The name comes from the repository's config (trigger.phrase): shown inert, and as code where it is typed.
  const name = inert(raw);
  const slash = (words: string) => code(`/${raw} ${words}`);
  return joinMarkdown([
    md`**${name} commands**`,
    md``,
    md`- ${code(`@${raw} <what to do>`)} or ${slash("<what to do>")}: start work on this issue or pull request, with these instructions.`,
    md`- ${slash("stop")}: cancel the running job.`,
    md`- ${slash("retry")}: run the last job again.`,
    md`- ${slash("approve")} / ${slash("deny")}: answer the question ${name} asked before a risky step.`,
    md`- ${slash("help")}: show this message.`,
    md``,
    md`A command counts only at the very start of a comment, so text you quote or paste never answers for you.`,
    md`Assigning the issue to the bot or adding the trigger label also starts work. Only users with write access can ask ${name} to work.`,
  ]);
}

function normalizeBotName(botName: string): string {
  return botName
    .trim()
    .replace(/^[@/]/, "")
    .replace(/\[bot\]$/i, "");
}

function findTokens(text: string, masked: string, name: string): Token[] {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // Whole word: not `foo@tackle.com`, `@tackle-bot`, `@tackle/pkg` or `src/tackle`.
  const after = String.raw`(?![\w\-/]|\.\w)`;
  const mention = String.raw`@${escaped}(?:\[bot\])?`;
  const tokens: Token[] = [];
  const atLineStart = new Set<number>();
  for (const match of masked.matchAll(new RegExp(String.raw`^[ \t]*(${mention}|/${escaped})${after}`, "gim"))) {
    const token = match[1] ?? "";
    const start = match.index + match[0].length - token.length;
    // Blanked code before the token is not whitespace in the original.
    if (text.slice(match.index, start).trim() !== "") continue;
    atLineStart.add(start);
    tokens.push({ start, end: start + token.length, slash: token.startsWith("/"), lineStart: true });
  }
  for (const match of masked.matchAll(new RegExp(String.raw`(?<![\w.+\-/@])${mention}${after}`, "gi"))) {
    if (atLineStart.has(match.index)) continue;
    tokens.push({ start: match.index, end: match.index + match[0].length, slash: false, lineStart: false });
  }
  return tokens.sort((a, b) => a.start - b.start);
}

/**
 * An invocation at the start of a line is dropped with the punctuation after it; one inside a
 * sentence becomes the plain name, so "thanks @tackle, now fix X" still reads.
 */
function removeTokens(text: string, tokens: readonly Token[], name: string): string {
  const parts: string[] = [];
  let position = 0;
  for (const token of tokens) {
    parts.push(text.slice(position, token.start));
    if (token.lineStart) {
      position = token.end + (/^[ \t]*[,:]?[ \t]*/.exec(text.slice(token.end, token.end + 200))?.[0].length ?? 0);
    } else {
      parts.push(name);
      position = token.end;
    }
  }
  parts.push(text.slice(position));
  return parts.join("").trim();
}
