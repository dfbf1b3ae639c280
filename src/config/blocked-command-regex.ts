import { regexBacktrackingProblem } from "./compile-hook-matcher.js";

/**
 * `blocked_commands` regular expressions run in the Tackle process on the model's Bash commands,
 * unanchored, so even two `.*` are cubic in the command's length (a 4 KB command took 13 s). So an
 * entry may hold at most two repetitions whose count varies and no repeated group with a repetition
 * or alternation, and entries are tested only on commands of at most this many characters: a longer
 * command is refused while the repository has regular-expression entries (its script can be written
 * to a file and run).
 */
export const BLOCKED_REGEX_MAX_INPUT = 1_024;
const MAX_VARYING_REPETITIONS = 2;

export type BlockedCommandEntry = { kind: "text"; text: string } | { kind: "regex"; regex: RegExp } | { kind: "invalid"; problem: string };

/** An entry as written: `/regex/flags`, or a substring. */
export function parseBlockedCommand(entry: string): BlockedCommandEntry {
  const match = /^\/(.+)\/([a-z]*)$/s.exec(entry);
  if (!match) return { kind: "text", text: entry };
  const [, source = "", flags = ""] = match;
  let regex: RegExp;
  try {
    regex = new RegExp(source, flags.replace(/g/g, ""));
  } catch (error) {
    return { kind: "invalid", problem: `not a regular expression: ${error instanceof Error ? error.message : String(error)}` };
  }
  const problem = regexBacktrackingProblem(source, MAX_VARYING_REPETITIONS);
  return problem === undefined ? { kind: "regex", regex } : { kind: "invalid", problem };
}
