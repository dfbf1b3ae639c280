/**
 * A small glob matcher for repository-relative paths with forward slashes: `**` (any number of
 * directories), `*` and `?` (within one segment), `{a,b}` alternatives (nestable) and `[...]`
 * classes. `*` and `?` also match dotfiles: for policy globs a missed `.env` costs more than a
 * surprising match.
 */
export interface GlobOptions {
  /**
   * A pattern without a slash matches the last segment at any depth, as in `.gitignore`
   * (`*.pem` matches `keys/a.pem`).
   * @defaultValue false
   */
  matchBase?: boolean;
  /** States the matcher may visit over all the paths it tests (the Glob tool passes GLOB_MAX_STEPS). @defaultValue no bound (patterns of Tackle's own) */
  maxSteps?: number;
}

/** A glob that spent its budget of states (GLOB_MAX_STEPS) on the paths it was given. */
export class GlobBudgetError extends RangeError {
  constructor(maxSteps: number) {
    super(`matching the pattern against these paths would visit more than ${maxSteps} states`);
    this.name = "GlobBudgetError";
  }
}

/** The longest pattern compiled: the Glob tool's input is the model's, and each listed path is run through the whole machine. */
export const GLOB_MAX_CHARS = 1_000;
/** Braces nested deeper are refused: each level is built by a call of its own. */
const MAX_BRACE_DEPTH = 32;

/**
 * What the Glob tool's matcher may spend on one listing, counted in states visited per character:
 * `**\/*.ts` over a 1 MB listing visits about 5 million, while 331 `**` alternatives (`{**,**,…,a/b}Z`,
 * 1,000 characters) keep 660 states alive on every character (660 million over 1 MB). Past it, `test`
 * throws GlobBudgetError. The tool also yields the event loop every GLOB_YIELD_STEPS.
 */
export const GLOB_MAX_STEPS = 50_000_000;
/** States visited between two yields of the event loop while the Glob tool filters a listing. */
export const GLOB_YIELD_STEPS = 250_000;

/** A compiled glob: `test` takes time linear in the path's length times the pattern's, whatever both hold. */
export interface GlobMatcher {
  test(path: string): boolean;
  /** The states visited so far, over every path tested: what a caller yields the event loop by. */
  readonly steps: number;
}

/**
 * Compiles a glob into a state machine run over the path once, never a regular expression: the Glob
 * tool's pattern is the model's, and as a backtracking expression `x/*a*a*a*a*a*a*a*a*b` took 23 s on a
 * name of 50 characters the model had written (each more `*` multiplying that), on the Tackle process's
 * event loop.
 */
export function compileGlob(glob: string, options: GlobOptions = {}): GlobMatcher {
  const maxSteps = options.maxSteps ?? Number.POSITIVE_INFINITY;
  if (glob.length > GLOB_MAX_CHARS) throw new RangeError(`a glob of ${glob.length} characters; at most ${GLOB_MAX_CHARS}`);
  let pattern = glob.startsWith("./") ? glob.slice(2) : glob;
  if (options.matchBase === true && !pattern.includes("/")) pattern = `**/${pattern}`;
  const machine = new Machine();
  const start = machine.node();
  const accept = build(machine, pattern, start);
  let steps = 0;
  return {
    test: (path) => {
      const result = machine.run(start, accept, path);
      steps += result.steps;
      if (steps > maxSteps) throw new GlobBudgetError(maxSteps);
      return result.matched;
    },
    get steps() {
      return steps;
    },
  };
}

export function matchesGlob(path: string, glob: string, options: GlobOptions = {}): boolean {
  return compileGlob(glob, options).test(path);
}

/** Builds one predicate for several globs (a path matching any of them). */
export function createGlobMatcher(globs: readonly string[], options: GlobOptions = {}): (path: string) => boolean {
  const matchers = globs.map((glob) => compileGlob(glob, options));
  return (path) => matchers.some((matcher) => matcher.test(path));
}

type CharTest = (unit: string) => boolean;

/** What `.` matches without the `s` flag: anything but a line terminator. */
const anyChar: CharTest = (unit) => unit !== "\n" && unit !== "\r" && unit !== "\u2028" && unit !== "\u2029";
const notSlash: CharTest = (unit) => unit !== "/";
const isSlash: CharTest = (unit) => unit === "/";

/** A nondeterministic automaton run by keeping the set of states it may be in (no backtracking). */
class Machine {
  private readonly edges: Array<Array<{ test: CharTest; to: number }>> = [];
  private readonly empties: number[][] = [];

  node(): number {
    this.edges.push([]);
    this.empties.push([]);
    return this.edges.length - 1;
  }

  edge(from: number, test: CharTest, to: number): void {
    this.edges[from]!.push({ test, to });
  }

  empty(from: number, to: number): void {
    this.empties[from]!.push(to);
  }

  /** Marks of the states already in the set being built: a stamp per set instead of a new Set per character. */
  private marks = new Uint32Array(0);
  private stamp = 0;

  /**
   * Runs the machine over `path`. Each character costs the states reached and their edges, each state
   * visited once (a stamp marks it), so a path costs its length times the machine's size at most;
   * `steps` counts every state visited, empty edges followed included.
   */
  run(start: number, accept: number, path: string): { matched: boolean; steps: number } {
    if (this.marks.length !== this.edges.length) this.marks = new Uint32Array(this.edges.length);
    let steps = 0;
    const closure = (seeds: number[]): number[] => {
      this.stamp += 1;
      const reached: number[] = [];
      const stack = seeds;
      while (stack.length > 0) {
        const state = stack.pop()!;
        if (this.marks[state] === this.stamp) continue;
        this.marks[state] = this.stamp;
        reached.push(state);
        for (const to of this.empties[state]!) if (this.marks[to] !== this.stamp) stack.push(to);
      }
      steps += reached.length;
      return reached;
    };
    let current = closure([start]);
    for (let i = 0; i < path.length && current.length > 0; i++) {
      const unit = path[i]!;
      const next: number[] = [];
      for (const state of current) for (const { test, to } of this.edges[state]!) if (test(unit)) next.push(to);
      current = closure(next);
    }
    return { matched: current.includes(accept), steps };
  }
}

/**
 * Adds `glob` to the machine from `start` and returns the state its end reaches: `**` (any number of
 * directories), `*` and `?` within one segment, `{a,b}` alternatives (nestable), `[...]` classes and
 * `\\` escapes, each as the regular expression it used to be translated to.
 */
function build(machine: Machine, glob: string, start: number, depth = 0): number {
  if (depth > MAX_BRACE_DEPTH) throw new RangeError(`a glob nesting braces more than ${MAX_BRACE_DEPTH} deep`);
  // Where each `{` closes and where the next `]` is, found in one pass each: scanning ahead from every
  // `{` or `[` that never closes would cost the square of the pattern's length.
  const closing = closingBraces(glob);
  const nextBracket = nextIndexOf(glob, "]");
  let current = start;
  /** The state before the last step when that step was a literal `/`: a trailing `/**` makes it optional. */
  let beforeSlash: number | undefined;
  let i = 0;
  const step = (test: CharTest, slash = false): void => {
    const next = machine.node();
    machine.edge(current, test, next);
    beforeSlash = slash ? current : undefined;
    current = next;
  };
  const repeat = (test: CharTest): void => {
    const loop = machine.node();
    machine.empty(current, loop);
    machine.edge(loop, test, loop);
    beforeSlash = undefined;
    current = loop;
  };
  while (i < glob.length) {
    const char = glob[i] as string;
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const atSegmentStart = i === 0 || glob[i - 1] === "/";
        const next = glob[i + 2];
        if (atSegmentStart && next === "/") {
          // `**/`: zero or more directories, `(?:.*/)?`.
          const loop = machine.node();
          const end = machine.node();
          machine.empty(current, end);
          machine.empty(current, loop);
          machine.edge(loop, anyChar, loop);
          machine.edge(loop, isSlash, end);
          beforeSlash = undefined;
          current = end;
          i += 3;
          continue;
        }
        if (atSegmentStart && next === undefined) {
          if (beforeSlash !== undefined) {
            // A trailing `/**` also matches the directory itself: `(?:/.*)?`.
            const end = machine.node();
            machine.empty(beforeSlash, end);
            machine.edge(current, anyChar, current);
            machine.empty(current, end);
            beforeSlash = undefined;
            current = end;
          } else repeat(anyChar);
          i += 2;
          continue;
        }
        repeat(notSlash);
        i += 2;
        continue;
      }
      repeat(notSlash);
      i += 1;
      continue;
    }
    if (char === "?") {
      step(notSlash);
      i += 1;
      continue;
    }
    if (char === "[") {
      const end = nextBracket[i + 2] ?? -1;
      if (end !== -1) {
        const body = glob.slice(i + 1, end);
        const negated = body.startsWith("!") || body.startsWith("^");
        // The members as text, every character that means something in a JS class escaped (`-` keeps
        // its ranges): `[]|(|)x]` is the class of `]`, `|`, `(`, `)` and `x`, never `[]` and regex text after it.
        const members = (negated ? body.slice(1) : body).replace(/[\\\][^]/g, "\\$&");
        // One character: a class cannot backtrack.
        const inClass = new RegExp(`^[${negated ? "^" : ""}${members}]$`);
        step((unit) => inClass.test(unit));
        i = end + 1;
        continue;
      }
    }
    if (char === "{") {
      const end = closing[i] ?? -1;
      if (end !== -1) {
        const after = machine.node();
        for (const alternative of splitAlternatives(glob.slice(i + 1, end))) {
          const from = machine.node();
          machine.empty(current, from);
          machine.empty(build(machine, alternative, from, depth + 1), after);
        }
        beforeSlash = undefined;
        current = after;
        i = end + 1;
        continue;
      }
    }
    if (char === "\\" && i + 1 < glob.length) {
      const literal = glob[i + 1] as string;
      step((unit) => unit === literal, literal === "/");
      i += 2;
      continue;
    }
    step((unit) => unit === char, char === "/");
    i += 1;
  }
  return current;
}

/** For each `{`, the index of the `}` that closes it (-1 for one that never closes): a stack, one pass. */
function closingBraces(glob: string): number[] {
  const closing = new Array<number>(glob.length).fill(-1);
  const open: number[] = [];
  for (let i = 0; i < glob.length; i += 1) {
    if (glob[i] === "{") open.push(i);
    else if (glob[i] === "}") {
      const from = open.pop();
      if (from !== undefined) closing[from] = i;
    }
  }
  return closing;
}

/** For each index, where `char` next occurs at or after it (-1: nowhere), filled from the end. */
function nextIndexOf(text: string, char: string): number[] {
  const next = new Array<number>(text.length + 1).fill(-1);
  for (let i = text.length - 1; i >= 0; i -= 1) next[i] = text[i] === char ? i : (next[i + 1] as number);
  return next;
}

function splitAlternatives(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i += 1) {
    if (body[i] === "{") depth += 1;
    else if (body[i] === "}") depth -= 1;
    else if (body[i] === "," && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}
