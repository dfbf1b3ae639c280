import { regexCost, regexCostProfile } from "./regex-cost.js";

/** The longest matcher a repository may write; tool names are short, and so should their patterns be. */
const MAX_MATCHER_CHARS = 500;
/**
 * Repetitions whose count varies (`*`, `+`, `{n,}`, and the bounded `?` and `{n,m}` too) a matcher may
 * hold: each one multiplies what a failing test may try. A bound does not help on names of up to 256
 * characters: `.?` written 60 times, or `.{0,60}` five times, is as slow as unbounded ones.
 */
const MAX_VARYING_REPETITIONS = 3;

export type CompiledHookMatcher = { ok: true; regex: RegExp } | { ok: false; problem: string };

/**
 * A hook's `matcher` as a regular expression over the whole tool name (`Edit|Write` matches `Edit`,
 * never `NotEdit`): anchored at both ends, so a bare name cannot match a longer one by accident. An
 * empty matcher matches every tool. It runs in the Tackle process on names partly chosen by the model
 * or an MCP server, so a pattern that can backtrack without bound is refused here: a repeated group
 * holding a repetition or an alternation (`(a+)+`, `(a|aa)+`), or more than three repetitions whose
 * count varies, bounded or not (`.*`, `a?`, `.{0,60}`).
 */
export function compileHookMatcher(matcher: string): CompiledHookMatcher {
  if (matcher.length > MAX_MATCHER_CHARS) return { ok: false, problem: `longer than ${MAX_MATCHER_CHARS} characters` };
  let regex: RegExp;
  try {
    // By itself first: the cost checks read the matcher as written, so it must be one whole expression.
    // `a|a)*(?:!` is no regular expression alone, but closes the wrapper's group inside it: `^(?:a|a)*(?:!)$`.
    new RegExp(matcher);
    regex = new RegExp(`^(?:${matcher === "" ? ".*" : matcher})$`);
  } catch (error) {
    return { ok: false, problem: `not a regular expression: ${error instanceof Error ? error.message : String(error)}` };
  }
  const problem = regexBacktrackingProblem(matcher, MAX_VARYING_REPETITIONS);
  if (problem !== undefined) return { ok: false, problem };
  if (regexCost(regexCostProfile(matcher), HOOK_MATCHED_NAME_CHARS) > HOOK_MATCHER_BUDGET) {
    return {
      ok: false,
      problem: `its alternatives and repetitions together could take too long on a tool name of ${HOOK_MATCHED_NAME_CHARS} characters (each (a|b) group doubles the work of its .* parts): simplify it`,
    };
  }
  return { ok: true, regex };
}

/**
 * The longest name a matcher is run on. Part of a canonical name is the model's (CallMcpTool's `tool`)
 * or an MCP server's, of any length, and even an ordinary matcher (`mcp__.*__.*_delete`) backtracks for
 * seconds on a long one in the Tackle process. A longer name is denied when PreToolUse hooks exist
 * (tool-hooks.ts).
 */
export const HOOK_MATCHED_NAME_CHARS = 256;
/**
 * What one matcher may cost on such a name (see `regexCost`): twice three `.*` with no alternatives,
 * a fraction of a second. Each bound on its own (256 ways; three repetitions) let their product
 * through: eight `(?:a|a)` and `.*.*.*b` held the event loop 23 s on one tool call.
 */
const HOOK_MATCHER_BUDGET = 2 * (HOOK_MATCHED_NAME_CHARS + 1) ** 4;

/**
 * Why the (valid) pattern could take exponential or high-polynomial time on a failing input, if it
 * could: a repeated group holding a repetition or an alternation, or more than `maxVarying`
 * repetitions whose count varies.
 */
export function regexBacktrackingProblem(pattern: string, maxVarying: number): string | undefined {
  /** Per open group: whether it holds a repetition or an alternation. */
  const groups: Array<{ risky: boolean }> = [];
  const tooManyRepetitions = `it has more than ${maxVarying} repetitions whose count varies (*, +, ?, {n,}, {n,m}; a fixed count above 3, such as {4}, counts as one), which can take exponential or high-polynomial time`;
  let varying = 0;
  let lastGroupRisky = false;
  let i = 0;
  const markRisky = () => {
    for (const group of groups) group.risky = true;
  };
  while (i < pattern.length) {
    const char = pattern[i] as string;
    let atomEndsGroup = false;
    if (char === "\\") {
      // A back-reference compares captured text again at every split: quartic for `(.*)(.*)\2\1`.
      if (/[1-9k]/.test(pattern[i + 1] ?? "")) return "it has a back-reference (\\1…\\9, \\k<name>), which can take high-polynomial time";
      i += 2;
    } else if (char === "[") {
      i += 1;
      if (pattern[i] === "^") i += 1;
      // In JavaScript a `]` right after `[` or `[^` closes the class (`[]`, `[^]`): it is no member.
      while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
      i += 1;
    } else if (char === "(") {
      groups.push({ risky: false });
      i += 1;
      continue;
    } else if (char === ")") {
      lastGroupRisky = groups.pop()?.risky ?? false;
      atomEndsGroup = true;
      i += 1;
    } else if (char === "|") {
      markRisky();
      i += 1;
      continue;
    } else i += 1;
    // A quantifier after the atom just read.
    const quantifier = /^(?:[*+?]|\{\d*(,\d*)?\})\??/.exec(pattern.slice(i));
    if (quantifier === null) continue;
    if (atomEndsGroup && lastGroupRisky) return "it repeats a group that holds a repetition or an alternation, which can take exponential time";
    if (varies(quantifier[0])) varying += 1;
    if (varying > maxVarying) return tooManyRepetitions;
    markRisky();
    i += quantifier[0].length;
  }
  // The alternatives and the fixed counts as the cost model reads them: a fixed count above three runs
  // as a loop, each turn about as dear as a step of a `.*`.
  const profile = regexCostProfile(pattern);
  if (varying + profile.counted.length > maxVarying) return tooManyRepetitions;
  if (profile.alternatives > MAX_ALTERNATIVE_WAYS) {
    return `its alternatives multiply to more than ${MAX_ALTERNATIVE_WAYS} ways of matching (each (a|b) group doubles them), which can take exponential time`;
  }
  return undefined;
}

/**
 * The most ways of matching, the product of the alternatives' branch counts, a pattern may hold:
 * twenty-two `(?:a|[a-z])` groups took 0.8 s on a 27-character name, each more doubled it, and
 * 45 fit in a matcher. Real ones (`Edit|Write|MultiEdit`, `(npm|yarn|pnpm) (publish|pack)`) hold a few.
 */
const MAX_ALTERNATIVE_WAYS = 256;

/** Whether a quantifier lets its atom match a varying number of times: all but `{n}` and `{n,n}`. */
function varies(quantifier: string): boolean {
  const counted = /^\{(\d*)(?:(,)(\d*))?\}/.exec(quantifier);
  if (counted === null) return true;
  return counted[2] !== undefined && counted[3] !== counted[1];
}
