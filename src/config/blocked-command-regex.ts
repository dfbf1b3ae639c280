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
/**
 * A repetition with a fixed count above three (`[a-z]{64}`) is run by V8 as a counted loop, each turn
 * of which cost about ten backtracking steps of a `.*`: `/.*.*[a-z]{4}x/` took 6.5 s on a
 * 1,024-character text against 0.15 s for `/.*.*x/`. Each turn counts this many times.
 */
const COUNTED_STEP_WEIGHT = 16;

/**
 * The shape of a regular expression that bounds the backtracking of a failing test (see
 * `blockedRegexCost`): the product of its alternations' branch counts, its `?`s, its other
 * repetitions whose count varies, and the counts of its fixed repetitions run as loops.
 */
export interface RegexCostProfile {
  alternatives: number;
  optional: number;
  repeated: number;
  counted: number[];
}

export type BlockedCommandEntry =
  | { kind: "text"; text: string }
  | { kind: "regex"; regex: RegExp; cost: RegexCostProfile }
  | { kind: "invalid"; problem: string };

/** An entry as written: `/regex/flags`, or a substring. */
export function parseBlockedCommand(entry: string): BlockedCommandEntry {
  const match = /^\/(.+)\/([a-z]*)$/s.exec(entry);
  if (!match) return { kind: "text", text: entry };
  const [, source = "", flags = ""] = match;
  if (source.length > BLOCKED_REGEX_MAX_SOURCE)
    return { kind: "invalid", problem: `a regular expression of ${source.length} characters; at most ${BLOCKED_REGEX_MAX_SOURCE}` };
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

/**
 * A bound, up to a constant, on the steps a failing test of the pattern takes on `length` characters:
 * each of the length + 1 starts tries every alternative, both ways of each `?` and each count of its
 * other varying repetitions, and walks each fixed-count loop. The pattern's own length is bounded
 * (BLOCKED_REGEX_MAX_SOURCE) and not counted.
 */
export function blockedRegexCost(profile: RegexCostProfile, length: number): number {
  const positions = length + 1;
  const loopSteps = profile.counted.reduce((sum, count) => sum + Math.min(count, positions), 0);
  return profile.alternatives * 2 ** profile.optional * positions ** (1 + profile.repeated) * (1 + COUNTED_STEP_WEIGHT * loopSteps);
}

/** Reads a (valid, checked) pattern's quantifiers and alternations the way regexBacktrackingProblem does. */
function regexCostProfile(pattern: string): RegexCostProfile {
  const profile: RegexCostProfile = { alternatives: 1, optional: 0, repeated: 0, counted: [] };
  /** Branch counts of the open groups, the whole pattern first. */
  const branches = [1];
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i] as string;
    if (char === "\\") i += 2;
    else if (char === "[") {
      i += 1;
      if (pattern[i] === "^") i += 1;
      while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
      i += 1;
    } else if (char === "(") {
      branches.push(1);
      i += 1;
      continue;
    } else if (char === ")") {
      profile.alternatives *= branches.pop() ?? 1;
      i += 1;
    } else if (char === "|") {
      branches[branches.length - 1] = (branches[branches.length - 1] ?? 1) + 1;
      i += 1;
      continue;
    } else i += 1;
    const quantifier = /^(?:[*+?]|\{(\d*)(?:(,)(\d*))?\})\??/.exec(pattern.slice(i));
    if (quantifier === null) continue;
    i += quantifier[0].length;
    const [text, min, comma, max] = quantifier;
    if (text.startsWith("?") || (min === "0" && comma !== undefined && max === "1")) profile.optional += 1;
    else if (text.startsWith("{") && (comma === undefined || max === min)) {
      const count = Number(min || "0");
      if (count > 3) profile.counted.push(count);
    } else profile.repeated += 1;
  }
  for (const count of branches) profile.alternatives *= count;
  return profile;
}
