/**
 * The one glob compiler of the Tackle host, for repository-relative paths with forward slashes: the
 * Glob tool's pattern (the model's), the policy's sensitive paths, and a repository's
 * `protected_paths` (hostile config, tested against the model's paths). A glob becomes a
 * nondeterministic state machine run over the path once, keeping the set of states it may be in, so a
 * test costs the path's length times the machine's size whatever both hold, never a regular
 * expression: as a backtracking expression `x/*a*a*a*a*a*a*a*a*b` took 23 s on a 50-character name,
 * and picomatch's `**\/a/**\/a/**\/a/**\/x` 37 s on `a/` × 600.
 *
 * Syntax: `**` as a whole segment (any number of directories; a trailing `/**` also matches the
 * directory itself), `*` and `?` within one segment, `[...]` classes (`!` or `^` negates, ranges,
 * POSIX classes such as `[[:digit:]]`, never `/`), `{a,b}` alternatives (nestable) and ranges as bash
 * expands them (`{1..3}`, `{01..10}`, `{a..e}`, `{1..9..2}`), extglobs `@(a|b)`, `?(…)`, `*(…)`,
 * `+(…)` and `!(…)` (within one segment: any text but what it holds), and `\` escapes. Anything else,
 * parentheses without an operator, `|`, `+` and quotes included, is a literal character. Wildcards
 * match dotfiles: for a policy glob a missed `.env` costs more than a surprising match.
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

/** A glob that does not compile: an unclosed group in strict mode, a bad range, or more than a machine may hold. */
export class GlobSyntaxError extends SyntaxError {
  constructor(message: string) {
    super(message);
    this.name = "GlobSyntaxError";
  }
}

/** The longest pattern compiled: the Glob tool's input is the model's, and each listed path is run through the whole machine. */
export const GLOB_MAX_CHARS = 1_000;
/** Groups (braces, extglobs) nested deeper are refused: each level is built by a call of its own. */
const MAX_GROUP_DEPTH = 32;
/** States plus edges one pattern may build (a range of 1,000 values is about 4,000): what a character of a path costs at most. */
export const GLOB_MAX_SIZE = 20_000;
/**
 * Work one pattern's `!(…)` groups may spend, together, turning what they hold into deterministic
 * machines: edges tried, each counted with its set's search (as a match counts steps). `!(*.example)`
 * spends a few hundred; a list of 200 entries at this bound compiles in about a second at worst.
 */
const MAX_COMPLEMENT_WORK = 50_000;
/** States of that deterministic machine. */
const MAX_COMPLEMENT_STATES = 128;
/** Ranges longer than this are refused rather than built into a huge machine. */
const MAX_RANGE_LENGTH = 1_000;

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

/** One run of a compiled glob over a text. */
export interface GlobRun {
  /** The whole text matches. */
  matched: boolean;
  /** Some text continuing this one could still match (the text is a prefix of a match). */
  couldContinue: boolean;
  /** States visited and edges tried. */
  steps: number;
  /** The run stopped at its step limit before the end of the text: `matched` and `couldContinue` are false, unknown. */
  exhausted: boolean;
}

/** A glob as a machine, for callers that budget several patterns together (`protected_paths`). */
export interface GlobMachine {
  /** States plus edges: the most one character of a text can cost. */
  readonly size: number;
  /**
   * Whether some repository path matches: one without an empty, `.` or `..` segment and not ending
   * in `/` (`config/[.]/keys` and `config/@(.|..)/keys` match only texts no checkout holds).
   */
  readonly matchesARealPath: boolean;
  run(text: string, stepLimit?: number): GlobRun;
}

export interface CompileOptions {
  /** An unclosed `[`, `{` or extglob `(` is an error instead of a literal character. @defaultValue false */
  strict?: boolean;
}

/** Compiles a glob into a machine (see the module's comment for the syntax); throws GlobSyntaxError. */
export function compileGlobMachine(glob: string, options: CompileOptions = {}): GlobMachine {
  if (glob.length > GLOB_MAX_CHARS) throw new GlobSyntaxError(`a glob of ${glob.length} characters; at most ${GLOB_MAX_CHARS}`);
  const machine = new Machine(GLOB_MAX_SIZE);
  const builder = new Builder(glob, options.strict === true);
  const start = machine.node();
  machine.seal(start, builder.sequence(machine, 0, glob.length, start, 0));
  return {
    size: machine.size,
    matchesARealPath: machine.reachesThroughRealPath(),
    run: (text, stepLimit = Number.POSITIVE_INFINITY) => machine.run(text, stepLimit),
  };
}

/** Compiles a glob for testing paths; `maxSteps` bounds what all the tests together may visit. */
export function compileGlob(glob: string, options: GlobOptions = {}): GlobMatcher {
  const maxSteps = options.maxSteps ?? Number.POSITIVE_INFINITY;
  let pattern = glob.startsWith("./") ? glob.slice(2) : glob;
  if (options.matchBase === true && !pattern.includes("/")) pattern = `**/${pattern}`;
  const machine = compileGlobMachine(pattern);
  let steps = 0;
  return {
    test: (path) => {
      const result = machine.run(path, maxSteps - steps);
      steps += result.steps;
      if (result.exhausted || steps > maxSteps) throw new GlobBudgetError(maxSteps);
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

// ---------------------------------------------------------------------------------------------
// Character sets: sorted, disjoint, inclusive ranges of code points, flat ([lo, hi, lo, hi, …]).
// Paths and patterns are read by code point: `?` is one character, an emoji included (read by UTF-16
// unit, `?` matched half of one and `[🔑🗝]` held four surrogates, so `secrets/[🔑🗝].pem` protected nothing).

type CharSet = readonly number[];

const SLASH = 0x2f;
const MAX_CODE_POINT = 0x10ffff;
const EVERY: CharSet = [0, MAX_CODE_POINT];
const NOT_SLASH: CharSet = [0, SLASH - 1, SLASH + 1, MAX_CODE_POINT];
const ONLY_SLASH: CharSet = [SLASH, SLASH];

function pointSet(point: number): CharSet {
  return [point, point];
}

/** Whether the set holds `point`: a binary search over its ranges. */
function hasPoint(set: CharSet, point: number): boolean {
  let low = 0;
  let high = set.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (point < (set[2 * middle] as number)) high = middle - 1;
    else if (point > (set[2 * middle + 1] as number)) low = middle + 1;
    else return true;
  }
  return false;
}

/** Whether the set holds a point other than `a` and `b`. */
function holdsOtherThan(set: CharSet, a: number, b: number): boolean {
  for (let i = 0; i < set.length; i += 2) {
    const lo = set[i] as number;
    const hi = set[i + 1] as number;
    const inside = (lo <= a && a <= hi ? 1 : 0) + (lo <= b && b <= hi ? 1 : 0);
    if (hi - lo + 1 > inside) return true;
  }
  return false;
}

/** What testing a set costs, in steps: one, plus the halvings of its search (a class of 1,000 ranges costs 11). */
function searchCost(set: CharSet): number {
  return 1 + Math.ceil(Math.log2(set.length / 2 + 1));
}

/** The code point at `i` and the index after it (a lone surrogate is a point of its own). */
function pointAt(text: string, i: number): [number, number] {
  const point = text.codePointAt(i) as number;
  return [point, i + (point > 0xffff ? 2 : 1)];
}

/** The union of ranges given in any order, overlapping or not. */
function normalize(ranges: Array<[number, number]>): CharSet {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of ranges) {
    const last = out.length - 1;
    if (last > 0 && lo <= (out[last] as number) + 1) out[last] = Math.max(out[last] as number, hi);
    else out.push(lo, hi);
  }
  return out;
}

function complement(set: CharSet): CharSet {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < set.length; i += 2) {
    if ((set[i] as number) > next) out.push(next, (set[i] as number) - 1);
    next = (set[i + 1] as number) + 1;
  }
  if (next <= MAX_CODE_POINT) out.push(next, MAX_CODE_POINT);
  return out;
}

function withoutSlash(set: CharSet): CharSet {
  const out: number[] = [];
  for (let i = 0; i < set.length; i += 2) {
    const lo = set[i] as number;
    const hi = set[i + 1] as number;
    if (hi < SLASH || lo > SLASH) out.push(lo, hi);
    else {
      if (lo < SLASH) out.push(lo, SLASH - 1);
      if (hi > SLASH) out.push(SLASH + 1, hi);
    }
  }
  return out;
}

/** POSIX classes, ASCII as in the C locale. */
const POSIX_CLASSES: Readonly<Record<string, ReadonlyArray<[number, number]>>> = {
  alnum: [r("0", "9"), r("A", "Z"), r("a", "z")],
  alpha: [r("A", "Z"), r("a", "z")],
  ascii: [[0, 0x7f]],
  blank: [r(" ", " "), r("\t", "\t")],
  cntrl: [
    [0, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [r("0", "9")],
  graph: [[0x21, 0x7e]],
  lower: [r("a", "z")],
  print: [[0x20, 0x7e]],
  punct: [r("!", "/"), r(":", "@"), r("[", "`"), r("{", "~")],
  space: [r(" ", " "), r("\t", "\r")],
  upper: [r("A", "Z")],
  word: [r("0", "9"), r("A", "Z"), r("a", "z"), r("_", "_")],
  xdigit: [r("0", "9"), r("A", "F"), r("a", "f")],
};

function r(lo: string, hi: string): [number, number] {
  return [lo.charCodeAt(0), hi.charCodeAt(0)];
}

// ---------------------------------------------------------------------------------------------

/** A nondeterministic automaton run by keeping the set of states it may be in (no backtracking). */
class Machine {
  private readonly edges: Array<Array<{ set: CharSet; to: number; cost: number }>> = [];
  private readonly empties: number[][] = [];
  /** States plus edges. */
  size = 0;

  constructor(private readonly maxSize: number) {}

  node(): number {
    this.grow();
    this.edges.push([]);
    this.empties.push([]);
    return this.edges.length - 1;
  }

  edge(from: number, set: CharSet, to: number): void {
    if (set.length === 0) return;
    this.grow();
    this.edges[from]!.push({ set, to, cost: searchCost(set) });
  }

  empty(from: number, to: number): void {
    this.grow();
    this.empties[from]!.push(to);
  }

  /** Every character set on an edge: where a deterministic copy must tell characters apart. */
  edgeSets(): CharSet[] {
    return this.edges.flatMap((out) => out.map((edge) => edge.set));
  }

  /** The states reached from `states` on `point`, before empty edges, and what trying their edges cost. */
  step(states: readonly number[], point: number): { next: number[]; cost: number } {
    const next: number[] = [];
    let cost = 0;
    for (const state of states) {
      for (const { set, to, cost: search } of this.edges[state]!) {
        cost += search;
        if (hasPoint(set, point)) next.push(to);
      }
    }
    return { next, cost: cost + states.length };
  }

  private grow(): void {
    this.size += 1;
    if (this.size > this.maxSize)
      throw new GlobSyntaxError(`the glob builds a machine of more than ${this.maxSize} states and edges; use fewer or shorter alternatives and ranges`);
  }

  /** Marks of the states already in the set being built: a stamp per set instead of a new Set per character. */
  private marks = new Uint32Array(0);
  private stamp = 0;

  /** The states reachable from `seeds` by empty edges, each once (sorted when asked: a set's key). */
  closure(seeds: number[], sorted = false): number[] {
    if (this.marks.length !== this.edges.length) this.marks = new Uint32Array(this.edges.length);
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
    return sorted ? reached.sort((a, b) => a - b) : reached;
  }

  /**
   * Whether `accept` can be reached from `start` reading a real path: the machine run beside a small
   * automaton of path shapes (0: a segment's start, 1: `.` read, 2: `..` read, 3: inside a named
   * segment, the only accepting one), searching their pairs of states once each.
   */
  reachesThroughRealPath(): boolean {
    const { start, accept } = this;
    const DOT = 0x2e;
    const onSlash = [-1, -1, -1, 0];
    const onDot = [1, 2, 3, 3];
    const onOther = [3, 3, 3, 3];
    const seen = new Set<number>();
    const stack: Array<[number, number]> = [[start, 0]];
    while (stack.length > 0) {
      const [state, shape] = stack.pop() as [number, number];
      const key = state * 4 + shape;
      if (seen.has(key)) continue;
      seen.add(key);
      if (state === accept && shape === 3) return true;
      for (const to of this.empties[state]!) stack.push([to, shape]);
      for (const { set, to } of this.edges[state]!) {
        if (hasPoint(set, SLASH) && onSlash[shape]! !== -1) stack.push([to, onSlash[shape] as number]);
        if (hasPoint(set, DOT)) stack.push([to, onDot[shape] as number]);
        if (holdsOtherThan(set, SLASH, DOT)) stack.push([to, onOther[shape] as number]);
      }
    }
    return false;
  }

  /** The machine's start and end, fixed once it is built: runs, their cache and the real-path check read them. */
  private start = 0;
  private accept = 0;
  /** 1 for each state from which `accept` can be reached (by any edge), 0 for the others. */
  private live: Uint8Array = new Uint8Array(0);

  seal(start: number, accept: number): void {
    this.start = start;
    this.accept = accept;
    this.live = this.liveStates(accept);
  }

  private liveStates(accept: number): Uint8Array {
    const into: number[][] = this.edges.map(() => []);
    for (const [from, out] of this.edges.entries()) for (const { to } of out) into[to]!.push(from);
    for (const [from, out] of this.empties.entries()) for (const to of out) into[to]!.push(from);
    const live = new Uint8Array(this.edges.length);
    const stack = [accept];
    live[accept] = 1;
    while (stack.length > 0) {
      for (const from of into[stack.pop()!]!) {
        if (live[from] === 0) {
          live[from] = 1;
          stack.push(from);
        }
      }
    }
    return live;
  }

  /**
   * Runs the machine over `text`, by code point. Each character costs the states reached and their
   * edges, each state visited once, so a text costs its length times the machine's size at most;
   * `steps` counts every state visited and every edge tried with its set's search (`searchCost`), and
   * the run stops when they pass `stepLimit`.
   */
  run(text: string, stepLimit: number): GlobRun {
    let steps = 0;
    let current = this.startSet;
    if (current === undefined) {
      const reached = this.closure([this.start]);
      steps += reached.length;
      current = this.startSet = this.setOf(reached);
    }
    for (let i = 0; i < text.length && current.states.length > 0; ) {
      if (steps > stepLimit) return { matched: false, couldContinue: false, steps, exhausted: true };
      const [point, after] = pointAt(text, i);
      i = after;
      const known = current.next.get(point);
      if (known !== undefined) {
        steps += 1;
        current = known;
        continue;
      }
      const moved = this.step(current.states, point);
      steps += moved.cost;
      const reached = this.closure(moved.next);
      // Finding the set costs its states again, several times over: filtered, sorted, joined into its key
      // and hashed (weighed so that a step costs about as much here as on a cached move).
      steps += reached.length * (8 + Math.ceil(Math.log2(reached.length + 1)));
      const set = this.setOf(reached);
      if (this.transitions < MAX_CACHED_TRANSITIONS && set.cached) {
        current.next.set(point, set);
        this.transitions += 1;
      }
      current = set;
    }
    if (steps > stepLimit) return { matched: false, couldContinue: false, steps, exhausted: true };
    return { matched: current.matched, couldContinue: current.states.length > 0, steps, exhausted: false };
  }

  /**
   * The sets of states met so far, each with its moves by character once computed: a path's next
   * character usually leads where it led before (`**\/*.ts` over 100,000 names meets a handful of
   * sets), so a cached move costs one step instead of the set's edges. Bounded: past
   * MAX_CACHED_TRANSITIONS moves, new ones are computed each time (and counted as such).
   */
  private readonly sets = new Map<string, StateSet>();
  private startSet: StateSet | undefined;
  private transitions = 0;
  private cachedStates = 0;

  /** The cached set for `reached`, keeping only its live states (a dead one cannot change an answer). */
  private setOf(reached: number[]): StateSet {
    const live = this.live;
    const states = reached.filter((state) => live[state] === 1).sort((a, b) => a - b);
    const key = states.join(",");
    const known = this.sets.get(key);
    if (known !== undefined) return known;
    const cached = this.sets.size < MAX_CACHED_SETS && this.cachedStates + states.length <= MAX_CACHED_STATES;
    const set: StateSet = { states, matched: states.includes(this.accept), next: new Map(), cached };
    if (cached) {
      this.sets.set(key, set);
      this.cachedStates += states.length;
    }
    return set;
  }
}

/** A set of live states the machine may be in, and its cached moves by code point. */
interface StateSet {
  readonly states: readonly number[];
  readonly matched: boolean;
  readonly next: Map<number, StateSet>;
  /** Kept in the cache (moves are cached only to kept sets, so what the cache holds stays bounded). */
  readonly cached: boolean;
}

/**
 * Bounds of one machine's cache: sets, the states they hold together, and moves (about 200 KB at
 * most; a list of 200 entries, 40 MB). Past them a set or a move is computed each time it is met.
 */
const MAX_CACHED_SETS = 1_024;
const MAX_CACHED_STATES = 16_384;
const MAX_CACHED_TRANSITIONS = 2_048;

/**
 * Builds a glob into a machine by recursive descent over index ranges of the pattern. Where each
 * group closes is found first, in one pass (scanning ahead from every `{` that never closes would
 * cost the square of the pattern's length), and each level splits its own alternatives, jumping over
 * nested groups, so every character is read a bounded number of times.
 */
class Builder {
  /** For each `{`, or `(` opening an extglob, the index of what closes it; -1 when nothing does. */
  private readonly closing: Int32Array;
  /** For each `[` that opens a class, the index of its `]`; -1 when it opens none. */
  private readonly classEnd: Int32Array;
  /** What the pattern's `!(…)` groups have spent so far (MAX_COMPLEMENT_WORK). */
  private work = 0;

  constructor(
    private readonly glob: string,
    private readonly strict: boolean,
  ) {
    this.classEnd = new Int32Array(glob.length).fill(-1);
    this.closing = new Int32Array(glob.length).fill(-1);
    this.pair();
  }

  private pair(): void {
    const glob = this.glob;
    const open: number[] = [];
    /** After a `[` that does not close, no later one does either: each scan ahead stops at the same end. */
    let unclosedFrom = Number.POSITIVE_INFINITY;
    for (let i = 0; i < glob.length; i += 1) {
      const char = glob[i];
      if (char === "\\") i += 1;
      else if (char === "[") {
        const end = i < unclosedFrom ? classEndOf(glob, i) : -1;
        if (end === -1) {
          if (this.strict) throw new GlobSyntaxError("a `[` is never closed; write `\\[` for the character");
          unclosedFrom = Math.min(unclosedFrom, i);
        } else {
          this.classEnd[i] = end;
          i = end;
        }
      } else if (char === "{") open.push(i);
      else if (isExtglobOperator(glob, i)) {
        open.push(i + 1);
        i += 1;
      } else if (char === "}" && open.length > 0 && glob[open[open.length - 1] as number] === "{") {
        this.closing[open.pop() as number] = i;
      } else if (char === ")") {
        // Closes the innermost extglob; braces opened inside it and not closed stay literal.
        const paren = open.findLastIndex((index) => glob[index] === "(");
        if (paren !== -1) {
          this.closing[open[paren] as number] = i;
          open.length = paren;
        }
      }
    }
    if (this.strict && open.length > 0) {
      const first = open[0] as number;
      const char = glob[first] as string;
      throw new GlobSyntaxError(`a \`${char === "(" ? `${glob[first - 1]}(` : "{"}\` is never closed; write \`\\${char}\` for the character`);
    }
  }

  /** Adds `glob[from, to)` to the machine from state `start`; returns the state its end reaches. */
  sequence(machine: Machine, from: number, to: number, start: number, depth: number): number {
    if (depth > MAX_GROUP_DEPTH) throw new GlobSyntaxError(`a glob nesting braces or extglobs more than ${MAX_GROUP_DEPTH} deep`);
    const glob = this.glob;
    let current = start;
    /** The state before the last step when that step was a literal `/`: a trailing `/**` makes it optional. */
    let beforeSlash: number | undefined;
    const step = (set: CharSet, slash = false): void => {
      const next = machine.node();
      machine.edge(current, set, next);
      beforeSlash = slash ? current : undefined;
      current = next;
    };
    const repeat = (set: CharSet): void => {
      const loop = machine.node();
      machine.empty(current, loop);
      machine.edge(loop, set, loop);
      beforeSlash = undefined;
      current = loop;
    };
    let i = from;
    while (i < to) {
      const char = glob[i] as string;
      if (isExtglobOperator(glob, i) && this.closing[i + 1]! !== -1 && this.closing[i + 1]! < to) {
        const end = this.closing[i + 1] as number;
        current = this.extglob(machine, char, i + 2, end, current, depth + 1);
        beforeSlash = undefined;
        i = end + 1;
        continue;
      }
      if (char === "*") {
        if (glob[i + 1] === "*" && !isExtglobOperator(glob, i + 1)) {
          const atSegmentStart = i === from || glob[i - 1] === "/";
          const afterwards = i + 2 < to ? glob[i + 2] : undefined;
          if (atSegmentStart && afterwards === "/") {
            // `**/`: zero or more directories.
            const loop = machine.node();
            const end = machine.node();
            machine.empty(current, end);
            machine.empty(current, loop);
            machine.edge(loop, EVERY, loop);
            machine.edge(loop, ONLY_SLASH, end);
            beforeSlash = undefined;
            current = end;
            i += 3;
            continue;
          }
          if (atSegmentStart && afterwards === undefined) {
            if (beforeSlash !== undefined) {
              // A trailing `/**` also matches the directory itself.
              const end = machine.node();
              machine.empty(beforeSlash, end);
              machine.edge(current, EVERY, current);
              machine.empty(current, end);
              beforeSlash = undefined;
              current = end;
            } else repeat(EVERY);
            i += 2;
            continue;
          }
          repeat(NOT_SLASH);
          i += 2;
          continue;
        }
        repeat(NOT_SLASH);
        i += 1;
        continue;
      }
      if (char === "?") {
        step(NOT_SLASH);
        i += 1;
        continue;
      }
      if (char === "[" && this.classEnd[i]! !== -1 && this.classEnd[i]! < to) {
        const end = this.classEnd[i] as number;
        step(classSet(glob, i, end, this.strict));
        i = end + 1;
        continue;
      }
      if (char === "{" && this.closing[i]! !== -1 && this.closing[i]! < to) {
        const end = this.closing[i] as number;
        current = this.brace(machine, i + 1, end, current, depth + 1);
        beforeSlash = undefined;
        i = end + 1;
        continue;
      }
      if (char === "\\" && i + 1 < to) {
        const [point, after] = pointAt(glob, i + 1);
        step(pointSet(point), point === SLASH);
        i = after;
        continue;
      }
      const [point, after] = pointAt(glob, i);
      step(pointSet(point), point === SLASH);
      i = after;
    }
    return current;
  }

  /** `{a,b}` alternatives, a range, or (neither) the literal braces around their body. */
  private brace(machine: Machine, from: number, to: number, start: number, depth: number): number {
    const alternatives = this.split(from, to, ",");
    if (alternatives.length > 1) return this.alternatives(machine, alternatives, start, depth);
    const range = /^([^.]+)\.\.([^.]+)(?:\.\.([^.]+))?$/.exec(this.glob.slice(from, to));
    if (range !== null) {
      let values: string[];
      try {
        values = rangeValues(range[1] as string, range[2] as string, range[3] ?? "1");
      } catch (error) {
        if (this.strict) throw error;
        values = [];
      }
      if (values.length > 0) {
        const after = machine.node();
        for (const value of values) {
          let current = start;
          for (let i = 0; i < value.length; i += 1) {
            const next = machine.node();
            machine.edge(current, pointSet(value.charCodeAt(i)), next);
            current = next;
          }
          machine.empty(current, after);
        }
        return after;
      }
    }
    // `{x}` without a comma or a range: the braces are characters.
    const open = machine.node();
    machine.edge(start, pointSet(0x7b), open);
    const body = this.sequence(machine, from, to, open, depth);
    const close = machine.node();
    machine.edge(body, pointSet(0x7d), close);
    return close;
  }

  private extglob(machine: Machine, operator: string, from: number, to: number, start: number, depth: number): number {
    const alternatives = this.split(from, to, "|");
    if (operator === "!") return this.complement(machine, alternatives, start, depth);
    if (operator === "@") return this.alternatives(machine, alternatives, start, depth);
    if (operator === "?") {
      const end = this.alternatives(machine, alternatives, start, depth);
      machine.empty(start, end);
      return end;
    }
    // `+(…)` once or more, `*(…)` any number of times.
    const loop = machine.node();
    machine.empty(start, loop);
    const end = this.alternatives(machine, alternatives, loop, depth);
    machine.empty(end, loop);
    if (operator === "*") machine.empty(loop, end);
    return end;
  }

  private alternatives(machine: Machine, alternatives: ReadonlyArray<[number, number]>, start: number, depth: number): number {
    const after = machine.node();
    for (const [from, to] of alternatives) {
      const first = machine.node();
      machine.empty(start, first);
      machine.empty(this.sequence(machine, from, to, first, depth), after);
    }
    return after;
  }

  /**
   * `!(…)`: any text within one segment but one the alternatives match (`config/!(*.example)`). The
   * alternatives are built into a machine of their own and made deterministic (its states are sets of
   * theirs, bounded by MAX_COMPLEMENT_STATES), whose copy in the outer machine may leave wherever the
   * text read so far is not one of theirs.
   */
  private complement(machine: Machine, alternatives: ReadonlyArray<[number, number]>, start: number, depth: number): number {
    const inner = new Machine(GLOB_MAX_SIZE);
    const innerStart = inner.node();
    const innerAccept = this.alternatives(inner, alternatives, innerStart, depth);
    // Characters the inner machine tells apart: the intervals between the ends of its edges' sets.
    const cuts = new Set<number>([0, SLASH, SLASH + 1, MAX_CODE_POINT + 1]);
    for (const set of inner.edgeSets()) for (let i = 0; i < set.length; i += 2) cuts.add(set[i] as number).add((set[i + 1] as number) + 1);
    const bounds = [...cuts].sort((a, b) => a - b);
    const classes: Array<[number, number]> = [];
    for (let i = 0; i + 1 < bounds.length; i += 1) if (bounds[i] !== SLASH) classes.push([bounds[i] as number, (bounds[i + 1] as number) - 1]);

    const keyOf = (states: readonly number[]) => states.join(",");
    const dfa: number[][] = [inner.closure([innerStart], true)];
    const index = new Map<string, number>([[keyOf(dfa[0] as number[]), 0]]);
    const moves: Array<Map<number, Array<[number, number]>>> = [];
    for (let d = 0; d < dfa.length; d += 1) {
      const byTarget = new Map<number, Array<[number, number]>>();
      for (const range of classes) {
        const moved = inner.step(dfa[d] as number[], range[0]);
        this.work += moved.cost;
        if (this.work > MAX_COMPLEMENT_WORK) throw new GlobSyntaxError("a `!(…)` in the glob is too complex to negate; list what to match instead");
        const next = inner.closure(moved.next, true);
        const key = keyOf(next);
        let target = index.get(key);
        if (target === undefined) {
          target = dfa.length;
          if (target >= MAX_COMPLEMENT_STATES) throw new GlobSyntaxError("a `!(…)` in the glob is too complex to negate; list what to match instead");
          dfa.push(next);
          index.set(key, target);
        }
        const ranges = byTarget.get(target) ?? [];
        ranges.push(range);
        byTarget.set(target, ranges);
      }
      moves.push(byTarget);
    }
    const nodes = dfa.map(() => machine.node());
    const end = machine.node();
    machine.empty(start, nodes[0] as number);
    for (const [d, states] of dfa.entries()) {
      if (!states.includes(innerAccept)) machine.empty(nodes[d] as number, end);
      for (const [target, ranges] of moves[d] as Map<number, Array<[number, number]>>)
        machine.edge(nodes[d] as number, normalize(ranges), nodes[target] as number);
    }
    return end;
  }

  /** The index ranges of `glob[from, to)` between top-level `separator`s, jumping over groups and classes. */
  private split(from: number, to: number, separator: string): Array<[number, number]> {
    const parts: Array<[number, number]> = [];
    let start = from;
    for (let i = from; i < to; i += 1) {
      const char = this.glob[i];
      if (char === "\\") i += 1;
      else if (char === "[" && this.classEnd[i]! !== -1) i = this.classEnd[i] as number;
      else if (char === "{" && this.closing[i]! !== -1) i = this.closing[i] as number;
      else if (isExtglobOperator(this.glob, i) && this.closing[i + 1]! !== -1) i = this.closing[i + 1] as number;
      else if (char === separator) {
        parts.push([start, i]);
        start = i + 1;
      }
    }
    parts.push([start, to]);
    return parts;
  }
}

/** An extglob's operator at `i` (`@(`, `?(`, `*(`, `+(`, `!(`); callers never ask at an escaped character. */
function isExtglobOperator(glob: string, i: number): boolean {
  return glob[i + 1] === "(" && "?*+@!".includes(glob[i] as string);
}

/** Where the class opened at `open` ends (its `]`), or -1: `]` right after `[` or `[!` is a member, `[:name:]` a POSIX class. */
function classEndOf(glob: string, open: number): number {
  let i = open + 1;
  if (glob[i] === "!" || glob[i] === "^") i += 1;
  if (glob[i] === "]") i += 1;
  while (i < glob.length) {
    const char = glob[i];
    if (char === "]") return i;
    if (char === "\\") i += 2;
    else if (char === "[" && glob[i + 1] === ":") {
      const close = glob.indexOf(":]", i + 2);
      i = close !== -1 && /^[a-z]+$/.test(glob.slice(i + 2, close)) ? close + 2 : i + 1;
    } else i += 1;
  }
  return -1;
}

/** The characters the class `glob[open, end]` matches; never `/`. */
function classSet(glob: string, open: number, end: number, strict: boolean): CharSet {
  let i = open + 1;
  const negated = glob[i] === "!" || glob[i] === "^";
  if (negated) i += 1;
  const ranges: Array<[number, number]> = [];
  while (i < end) {
    if (glob[i] === "[" && glob[i + 1] === ":") {
      const close = glob.indexOf(":]", i + 2);
      const name = close === -1 ? "" : glob.slice(i + 2, close);
      const posix = POSIX_CLASSES[name];
      if (close !== -1 && close < end && /^[a-z]+$/.test(name)) {
        if (posix === undefined) {
          if (strict) throw new GlobSyntaxError(`[:${name}:] is not a POSIX class (alnum, alpha, digit, lower, upper, space, …)`);
        } else ranges.push(...posix);
        i = close + 2;
        continue;
      }
    }
    const [lo, afterLo] = memberAt(glob, i);
    let next = afterLo;
    let hi = lo;
    if (glob[next] === "-" && next + 1 < end) {
      [hi, next] = memberAt(glob, next + 1);
      if (hi < lo)
        throw new GlobSyntaxError(`the range ${String.fromCodePoint(lo)}-${String.fromCodePoint(hi)} in ${glob.slice(open, end + 1)} is out of order`);
    }
    ranges.push([lo, hi]);
    i = next;
  }
  const members = normalize(ranges);
  return withoutSlash(negated ? complement(members) : members);
}

/** One member of a class at `i` (an escaped character, or any): its code point and where the next begins. */
function memberAt(glob: string, i: number): [number, number] {
  return pointAt(glob, glob[i] === "\\" && i + 1 < glob.length ? i + 1 : i);
}

/**
 * A brace range's values as bash expands them: whole numbers (zero-padded when an end is, with an
 * optional step) or single letters, in either direction.
 */
export function rangeValues(from: string, to: string, stepText: string): string[] {
  const integer = /^-?\d+$/;
  if (!integer.test(stepText)) throw new GlobSyntaxError(`the step of {${from}..${to}..${stepText}} is not a whole number`);
  const step = Math.abs(Number(stepText)) || 1;
  let start: number;
  let end: number;
  let format: (value: number) => string;
  if (integer.test(from) && integer.test(to)) {
    start = Number(from);
    end = Number(to);
    const padded = /^-?0\d/.test(from) || /^-?0\d/.test(to);
    const width = Math.max(from.length, to.length);
    format = (value) => {
      if (!padded) return String(value);
      const digits = String(Math.abs(value)).padStart(value < 0 ? width - 1 : width, "0");
      return value < 0 ? `-${digits}` : digits;
    };
  } else if (/^[A-Za-z]$/.test(from) && /^[A-Za-z]$/.test(to)) {
    start = from.charCodeAt(0);
    end = to.charCodeAt(0);
    format = (value) => String.fromCharCode(value);
  } else {
    throw new GlobSyntaxError(`{${from}..${to}} is not a range of whole numbers or of single letters`);
  }
  const count = Math.floor(Math.abs(end - start) / step) + 1;
  if (!Number.isSafeInteger(count) || count > MAX_RANGE_LENGTH)
    throw new GlobSyntaxError(`{${from}..${to}} has ${count} values, more than ${MAX_RANGE_LENGTH}`);
  const direction = end >= start ? 1 : -1;
  return Array.from({ length: count }, (_, index) => format(start + direction * step * index));
}
