import { regexBacktrackingProblem } from "./compile-hook-matcher.js";
import { type RegexCostProfile, regexCost, regexCostProfile } from "./regex-cost.js";

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
/** The longest `/regex/` entry: what is tried at each split of its repetitions grows with its length. */
const BLOCKED_REGEX_MAX_SOURCE = 256;
/** `/regex/` entries a repository may list (text entries are cheap and count only against the list's 200). */
export const BLOCKED_REGEX_MAX_ENTRIES = 20;
/**
 * What one Bash call's `blocked_commands` check may cost, in the units of `blockedRegexCost`: four
 * times `/a.*b.*c/` on a 1,024-character text (0.15 to 0.5 s each on a two-core machine). Each entry
 * is tried on every text of the command (the whole line, each simple command, each `bash -c` or `eval`
 * script unwrapped), so a bound per entry is none per call: ten `/.*.*x/` entries on a 1,000-character
 * command nested four shells deep (six texts) took 23 s, the 200 a list could hold minutes. A command
 * whose check would cost more is refused before any entry runs, never checked in part.
 */
export const BLOCKED_CHECK_BUDGET = 4 * (BLOCKED_REGEX_MAX_INPUT + 1) ** 3;
export type BlockedCommandEntry =
  | { kind: "text"; text: string }
  | { kind: "regex"; regex: RegExp; cost: RegexCostProfile }
  | { kind: "invalid"; problem: string };

/**
 * The flags an entry may carry: the cost checks read a pattern as written without them, so a flag
 * that changes what a sequence means is not taken. Not `v`: a class may hold strings (`[\q{a|aa}]`),
 * which V8 runs as an alternation the checks read as one character (`/[\q{a|aa}]+!/v` backtracks like
 * `(a|aa)+`). Not `u`: `\u{1}` and `\p{L}` become one character, where the checks read a letter and a
 * count, so `/\u{1}*\u{1}*…x/u` hid six repetitions (46 s on 100 characters). `g` is dropped (a test keeps no state).
 */
const BLOCKED_REGEX_FLAGS = /^[dgimsy]*$/;

/** An entry as written: `/regex/flags`, or a substring. */
export function parseBlockedCommand(entry: string): BlockedCommandEntry {
  const match = /^\/(.+)\/([a-z]*)$/s.exec(entry);
  if (!match) return { kind: "text", text: entry };
  const [, source = "", flags = ""] = match;
  if (source.length > BLOCKED_REGEX_MAX_SOURCE)
    return { kind: "invalid", problem: `a regular expression of ${source.length} characters; at most ${BLOCKED_REGEX_MAX_SOURCE}` };
  if (!BLOCKED_REGEX_FLAGS.test(flags)) {
    return {
      kind: "invalid",
      problem: `the flags \`${flags}\` are not taken: an entry may use d, g, i, m, s and y (under u and v, \`\\u{…}\`, \`\\p{…}\` and \`[\\q{…}]\` mean what the cost check cannot see)`,
    };
  }
  let regex: RegExp;
  try {
    regex = new RegExp(source, flags.replace(/g/g, ""));
  } catch (error) {
    return { kind: "invalid", problem: `not a regular expression: ${error instanceof Error ? error.message : String(error)}` };
  }
  const problem = regexBacktrackingProblem(source, MAX_VARYING_REPETITIONS);
  if (problem !== undefined) return { kind: "invalid", problem };
  const cost = regexCostProfile(source);
  if (blockedRegexCost(cost, BLOCKED_REGEX_MAX_INPUT) > BLOCKED_CHECK_BUDGET) {
    return {
      kind: "invalid",
      problem: `its repetitions and alternatives together could take too long on a command of ${BLOCKED_REGEX_MAX_INPUT} characters (a fixed count above 3, such as {4}, weighs like a third repetition; alternatives multiply): simplify it`,
    };
  }
  return { kind: "regex", regex, cost };
}

/** What one `/regex/` entry may cost on `length` characters (see `regexCost`). */
export const blockedRegexCost: (profile: RegexCostProfile, length: number) => number = regexCost;
