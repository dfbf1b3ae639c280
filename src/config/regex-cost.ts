/**
 * A bound, up to a constant, on the work a failing test of a regular expression does: the shape of
 * the pattern (its alternatives, `?`s, varying repetitions and fixed-count loops) read once, and a
 * cost on a text of a given length. Shared by `blocked_commands` entries and hook matchers: a bound
 * on each factor alone lets their product through (256 ways × three `.*` on a 256-character name: 23 s).
 */

/**
 * A repetition with a fixed count above three (`[a-z]{64}`) is run by V8 as a counted loop, each turn
 * of which cost about ten backtracking steps of a `.*`: `/.*.*[a-z]{4}x/` took 6.5 s on a
 * 1,024-character text against 0.15 s for `/.*.*x/`. Each turn counts this many times.
 */
const COUNTED_STEP_WEIGHT = 16;

/**
 * The shape of a regular expression that bounds the backtracking of a failing test (see
 * `regexCost`): the product of its alternations' branch counts, its `?`s, its other
 * repetitions whose count varies, and the counts of its fixed repetitions run as loops.
 */
export interface RegexCostProfile {
  alternatives: number;
  optional: number;
  repeated: number;
  counted: number[];
}

/**
 * A bound, up to a constant, on the steps a failing test of the pattern takes on `length` characters:
 * each of the length + 1 starts tries every alternative, both ways of each `?` and each count of its
 * other varying repetitions, and walks each fixed-count loop. The pattern's own length is bounded
 * (by its caller) and not counted.
 */
export function regexCost(profile: RegexCostProfile, length: number): number {
  const positions = length + 1;
  const loopSteps = profile.counted.reduce((sum, count) => sum + Math.min(count, positions), 0);
  return profile.alternatives * 2 ** profile.optional * positions ** (1 + profile.repeated) * (1 + COUNTED_STEP_WEIGHT * loopSteps);
}

/** Reads a (valid) pattern's alternations and quantifiers: its shape for `regexCost`, and the ways and fixed counts `regexBacktrackingProblem` bounds. */
export function regexCostProfile(pattern: string): RegexCostProfile {
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
