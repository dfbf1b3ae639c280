import picomatch from "picomatch";

/**
 * One repository path pattern (a `protected_paths` entry), compiled by picomatch: `*`, `?`, `**`,
 * `[...]` with POSIX classes (`[[:digit:]]`), `{a,b}` and ranges (`{1..3}`, `{01..10}`, `{a..e}`,
 * `{1..9..2}`), and extglobs (`+(a|b)`, `!(x)`, `@(…)`, `?(…)`, `*(…)`). Wildcards match dotfiles:
 * for a protected path a missed `.env` costs more than a surprising match. A pattern without a slash
 * matches a name at any depth, as in `.gitignore`. A leading `./` is dropped.
 */
export interface PathPattern {
  /** The pattern as written. */
  readonly source: string;
  /** False for a pattern without a slash, which matches at any depth. */
  readonly anchored: boolean;
  /** Whether a repository-relative path matches; `dir/**` also matches `dir` itself. */
  test(relativePath: string): boolean;
  /** Whether some path strictly below the directory `relativeDir` could match ("" is the root). */
  couldMatchBelow(relativeDir: string): boolean;
  /** What testing a path may cost, relative to other patterns: its ways to match one place times 8 per wildcard (`createPathMatcher` bounds a list's sum). */
  readonly weight: number;
}

export type CompiledPathPattern = { ok: true; pattern: PathPattern } | { ok: false; problem: string };

/** Ranges longer than this are refused rather than turned into a huge regular expression. */
const MAX_RANGE_LENGTH = 1000;

const OPTIONS: picomatch.PicomatchOptions = {
  // Repository paths use forward slashes on every platform.
  windows: false,
  dot: true,
  posix: true,
  // Unbalanced `[`, `(` or `{` throw instead of silently turning into literal characters.
  strictBrackets: true,
  // A regular expression that does not compile throws instead of becoming one that matches nothing.
  debug: true,
  // A leading `!` is refused below: a negated entry would protect everything else.
  nonegate: true,
  expandRange,
};

/**
 * Compiles a pattern, or says why it cannot match what it seems to name. Every way a pattern could
 * silently match nothing is a problem here: a syntax picomatch does not accept, a shape no
 * repository path has (`/abs`, `dir/`, `a/../b`), and, as a last check, a path built from the
 * pattern itself that the compiled matcher does not match.
 */
export function compilePathPattern(source: string): CompiledPathPattern {
  const glob = source.startsWith("./") ? source.slice(2) : source;
  const shapeProblem = shapeProblemOf(glob);
  if (shapeProblem !== undefined) return { ok: false, problem: `\`${source}\` ${shapeProblem}` };

  const anchored = glob.includes("/");
  const syntax = unsupportedSyntax(glob, false);
  if (syntax !== undefined) return { ok: false, problem: `\`${source}\` ${syntax}` };
  const cost = backtrackingProblem(anchored ? glob : `**/${glob}`);
  if (typeof cost === "string") return { ok: false, problem: `\`${source}\` ${cost}` };
  const segments = splitTopLevel(glob, "/");
  let test: picomatch.Matcher;
  let segmentTests: Array<picomatch.Matcher | undefined>;
  try {
    test = picomatch(anchored ? glob : `**/${glob}`, OPTIONS);
    // `**` and a segment holding a `/` inside a group (`{a/b,c}`) are not matched segment by segment.
    segmentTests = segments.map((segment) => (segment === "**" || segment.includes("/") ? undefined : picomatch(segment, OPTIONS)));
  } catch (error) {
    return { ok: false, problem: `\`${source}\` is not a valid glob: ${syntaxProblem(error)}` };
  }
  const example = samplePath(glob);
  if (!test(example)) {
    return { ok: false, problem: `\`${source}\` cannot match any path as written (not even \`${example}\`)` };
  }

  return {
    ok: true,
    pattern: {
      source,
      anchored,
      test: (relativePath) => test(relativePath),
      couldMatchBelow: (relativeDir) => (anchored ? couldMatchBelow(segmentTests, relativeDir) : true),
      weight: cost.weight,
    },
  };
}

/** Wildcards of varying width a pattern may hold (`*`, `**`, `*(…)`, `+(…)`), counting the globstar a pattern without a slash starts with. */
const MAX_WILDCARDS = 3;
/** Of those, `**`: each spans the whole path (up to 4,096 characters), not one name. */
const MAX_GLOBSTARS = 2;
/**
 * The ways a pattern's groups can match one place, multiplied together (`{a,b}` two, `{1..11}` eleven,
 * `@(a|b|c)` three, `?(a)` two): a failing path tries each way of each group in turn, so a chain of
 * overlapping alternatives is exponential without a wildcard (`@([a]|aa)` × 40: 14 s on 50 characters).
 */
const MAX_CHOICES = 64;

/**
 * Why a pattern could hold the Tackle process, which tests the model's paths against it (every write,
 * every published file): picomatch makes each wildcard a lazy repetition, so a path that fails tries
 * every way of splitting it among them. `*.*.*.*.x` took 250 ms on one 250-character name, and each
 * more `*` multiplies that by about the name's length over the count (ten of them: days); four globstars (`**` `/a/` `**` `/a/` `**`
 * `/a/` `**` `/x`) took 37 s on `a/` × 600. Brace alternatives are counted together, which can only count more.
 */
function backtrackingProblem(glob: string): string | { weight: number } {
  let wildcards = 0;
  let globstars = 0;
  let choices = 1;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    const next = glob[i + 1];
    if (char === "\\") i += 1;
    else if (char === "[") {
      // A bracket expression is one character, whatever it holds.
      const end = glob.indexOf("]", i + 2);
      if (end > i) i = end;
    } else if (char === "*" && next === "*") {
      let last = i + 1;
      while (glob[last + 1] === "*") last += 1;
      if (glob[last + 1] === "(") {
        // `**(a)` is `*` then the extglob `*(a)` to picomatch: two wildcards, the group checked below.
        wildcards += 1;
        i = last - 1;
        continue;
      }
      globstars += 1;
      wildcards += 1;
      i = last;
    } else if ((char === "*" || char === "+" || char === "!") && next === "(") {
      // `*(…)`, `+(…)` repeat their group; picomatch makes `!(…)` a lazy `[^/]*?` checked against it.
      wildcards += 1;
      if (char === "!") choices *= splitTopLevel(glob.slice(i + 2, closingIndex(glob, i + 1)), "|").length;
      i += 1;
    } else if ((char === "@" || char === "?") && next === "(") {
      const alternatives = splitTopLevel(glob.slice(i + 2, closingIndex(glob, i + 1)), "|").length;
      choices *= char === "?" ? alternatives + 1 : alternatives;
      i += 1;
    } else if (char === "*") wildcards += 1;
    else if (char === "{") {
      const end = closingIndex(glob, i);
      if (end < glob.length) choices *= braceChoices(glob.slice(i + 1, end));
    }
    // Groups nested in a group are scanned too: their ways multiply (an over-count, on the safe side).
    if (choices > MAX_CHOICES) {
      return `can match one place in more than ${MAX_CHOICES} ways (each \`{…}\`, range, \`@(…)\`, \`?(…)\` or \`!(…)\` multiplies them), which can take a long time to test on a path that does not match; list such patterns as entries of their own`;
    }
  }
  const repeated = repeatedGroupProblem(glob);
  if (repeated !== undefined) return repeated;
  if (globstars > MAX_GLOBSTARS) return `holds more than ${MAX_GLOBSTARS} \`**\`, which can take a long time to test on a deep path`;
  if (wildcards > MAX_WILDCARDS) {
    return `holds more than ${MAX_WILDCARDS} wildcards of varying width (\`*\`, \`**\`, \`*(…)\`, \`+(…)\`, \`!(…)\`, counting the \`**/\` a pattern without a slash starts with), which can take a long time to test on a long name`;
  }
  const weight = choices * 8 ** wildcards;
  if (weight > MAX_PATTERN_WEIGHT) {
    return `combines ${wildcards} wildcards with ${choices} ways to match one place, which can take a long time to test on a long name; use fewer alternatives, or list them as entries of their own`;
  }
  return { weight };
}

/**
 * What one pattern may weigh (its ways to match one place times 8 per wildcard of varying width):
 * `**\/*.{js,jsx,ts,tsx}` weighs 256, `*.*.*` 512; three wildcards and 64 ways (`d/*@(a|…|a⁸)*@(a|…|a⁸)*x`)
 * took 188 ms on one 250-character name.
 */
const MAX_PATTERN_WEIGHT = 2_048;

/**
 * Syntax picomatch turns into regular expression text the checks above cannot weigh, refused: quotes
 * (picomatch drops them, so `+(a|"a")` is `(?:a|a)+`), a bare group or `|` outside an extglob
 * (passed through as regex groups and alternations), `+` not opening an extglob and `?` right after
 * `)`, `]` or `}` (regex quantifiers there), and `\` before a digit (a back-reference).
 */
function unsupportedSyntax(text: string, inExtglob: boolean): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const next = text[i + 1];
    if (char === "\\") {
      if (next !== undefined && next >= "0" && next <= "9") return "holds `\\` before a digit; write the digit alone";
      i += 1;
    } else if (char === '"' || char === "'") {
      return `holds a quote (\`${char}\`), which picomatch drops; write \`\\${char}\` for the character itself`;
    } else if (char === "[") {
      i = closingIndex(text, i);
    } else if ("?*+@!".includes(char) && next === "(") {
      const end = closingIndex(text, i + 1);
      const inner = unsupportedSyntax(text.slice(i + 2, end), true);
      if (inner !== undefined) return inner;
      i = end;
    } else if (char === "{") {
      const end = closingIndex(text, i);
      const inner = unsupportedSyntax(text.slice(i + 1, end), false);
      if (inner !== undefined) return inner;
      i = end;
    } else if (char === "(") {
      return "holds a group `(…)` without an extglob operator; write `@(a|b)` for alternatives";
    } else if (char === "|" && !inExtglob) {
      return "holds `|` outside an extglob; write `@(a|b)` or `{a,b}` for alternatives";
    } else if (char === "+") {
      return "holds a `+` that opens no extglob, which picomatch may read as a repetition; write `\\+` for the character";
    } else if (char === "?" && i > 0 && ")]}".includes(text[i - 1] as string)) {
      return "holds a `?` right after `)`, `]` or `}`, which picomatch reads as a regex `?`; write `\\?`, or put another character between";
    }
  }
  return undefined;
}

/**
 * A repeated extglob (`*(…)`, `+(…)`) that can match a name in more than one way: picomatch compiles
 * `+([a]|aa)x` to `(?:[a]|aa)+x`, and a name that fails tries every way of cutting it into the group's
 * matches (40 characters: 1.9 s, ×1.6 for each more). A repeated group is taken when its alternatives
 * are fixed texts starting with different characters (`+(a|b)`, `*(.js|-min)`): then at most one
 * alternative can start at each place, and the group matches one way.
 */
function repeatedGroupProblem(glob: string): string | undefined {
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "\\") i += 1;
    else if (char === "[") i = closingIndex(glob, i);
    else if ((char === "*" || char === "+") && glob[i + 1] === "(") {
      const end = closingIndex(glob, i + 1);
      if (!matchesOneWay(splitTopLevel(glob.slice(i + 2, end), "|"))) {
        return `repeats a group that can match a name in more than one way (\`${glob.slice(i, end + 1)}\`), which can take a long time to test on a long name; a repeated group may hold fixed texts that start with different characters (\`+(a|b)\`), or list the alternatives as entries of their own`;
      }
      i = end;
    }
  }
  return undefined;
}

/** Fixed, non-empty texts (escapes allowed; no wildcard, class, brace or group), no two starting alike. */
function matchesOneWay(alternatives: readonly string[]): boolean {
  const firsts = new Set<string>();
  for (const alternative of alternatives) {
    let text = "";
    for (let i = 0; i < alternative.length; i++) {
      const char = alternative[i] as string;
      if (char === "\\") text += alternative[++i] ?? "";
      else if ("*?[]{}()|!@+".includes(char)) return false;
      else text += char;
    }
    const first = text[0];
    if (first === undefined || firsts.has(first)) return false;
    firsts.add(first);
  }
  return true;
}

/** The ways a brace group can match: its alternatives, or its range's values (1 for text picomatch keeps literal). */
function braceChoices(body: string): number {
  const alternatives = splitTopLevel(body, ",").length;
  if (alternatives > 1) return alternatives;
  const range = /^([^.]+)\.\.([^.]+)(?:\.\.([^.]+))?$/.exec(body);
  if (range === null) return 1;
  try {
    return rangeValues(range[1] as string, range[2] as string, range[3] ?? "1").length;
  } catch {
    // Not a range picomatch expands: compiling it reports the problem.
    return 1;
  }
}

/** picomatch's message, without the generated regular expression a reader of the config never wrote. */
function syntaxProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "");
}

function shapeProblemOf(glob: string): string | undefined {
  if (glob.startsWith("/")) return "starts with `/`; paths are relative to the repository root, so drop it";
  if (glob.startsWith("!") && !glob.startsWith("!(")) {
    return "starts with `!`; entries only add protection, so list what to protect (write `\\!` for a name starting with `!`)";
  }
  if (/(?:^|[^\\])(?:\\\\)*\\$/.test(glob)) return "ends with a `\\` that escapes nothing";
  if (glob.endsWith("/")) return `ends with \`/\`; write \`${glob}**\` to protect a directory and everything in it`;
  const segments = splitTopLevel(glob, "/");
  if (segments.some((segment) => segment === "")) return "has an empty path segment (`//`)";
  if (segments.some((segment) => segment === "." || segment === "..")) return "has a `.` or `..` segment, which no repository path has";
  return undefined;
}

/**
 * Whether a path below `dir` could match, segment by segment. Where a segment has no matcher of its
 * own (`**`, which can absorb the rest, or a group holding a `/`), the answer is yes:
 * over-approximating is the safe side for a protected path.
 */
function couldMatchBelow(segmentTests: ReadonlyArray<picomatch.Matcher | undefined>, dir: string): boolean {
  const names = dir === "" ? [] : dir.split("/");
  for (const [index, name] of names.entries()) {
    if (index >= segmentTests.length) return false;
    const segmentTest = segmentTests[index];
    if (segmentTest === undefined) return true;
    if (!segmentTest(name)) return false;
  }
  return segmentTests.length > names.length;
}

/**
 * picomatch leaves brace ranges to the caller; this expands them as bash does: numbers (zero-padded
 * when an end is, with an optional step) or single letters, in either direction.
 */
function expandRange(from: string, to: string, ...rest: unknown[]): string {
  const step = typeof rest[0] === "string" ? rest[0] : "1";
  const values = rangeValues(from, to, step);
  return `(${values.map(escapeRegExp).join("|")})`;
}

function rangeValues(from: string, to: string, stepText: string): string[] {
  const integer = /^-?\d+$/;
  if (!integer.test(stepText)) throw new SyntaxError(`the step of {${from}..${to}..${stepText}} is not a whole number`);
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
    throw new SyntaxError(`{${from}..${to}} is not a range of whole numbers or of single letters`);
  }
  const count = Math.floor(Math.abs(end - start) / step) + 1;
  if (count > MAX_RANGE_LENGTH) throw new SyntaxError(`{${from}..${to}} has ${count} values, more than ${MAX_RANGE_LENGTH}`);
  const direction = end >= start ? 1 : -1;
  return Array.from({ length: count }, (_, index) => format(start + direction * step * index));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** The extglob operators: `?(…)`, `*(…)`, `+(…)`, `@(…)`, `!(…)`. */
const EXTGLOB = new Set(["?", "*", "+", "@", "!"]);
/** What a `!(…)` stands for in a sample: almost anything is not what it excludes. */
const NEGATED_SAMPLE = "tackle-sample";

/**
 * A path the pattern should match, built from it: the first alternative of each group, a letter
 * for each wildcard, a member of each bracket class. For the self-check only.
 */
function samplePath(glob: string): string {
  let out = "";
  let index = 0;
  while (index < glob.length) {
    const char = glob[index] as string;
    const next = glob[index + 1];
    if (char === "\\") {
      out += next ?? "";
      index += 2;
    } else if (EXTGLOB.has(char) && next === "(") {
      const end = closingIndex(glob, index + 1);
      out += char === "!" ? NEGATED_SAMPLE : samplePath(splitTopLevel(glob.slice(index + 2, end), "|")[0] ?? "");
      index = end + 1;
    } else if (char === "*" || char === "?") {
      while (glob[index] === char) index += 1;
      out += "a";
    } else if (char === "(" || char === "{") {
      const end = closingIndex(glob, index);
      out += groupSample(char, glob.slice(index + 1, end));
      index = end + 1;
    } else if (char === "[") {
      const end = closingIndex(glob, index);
      out += bracketSample(glob.slice(index, end + 1));
      index = end + 1;
    } else {
      out += char;
      index += 1;
    }
  }
  return out;
}

function groupSample(open: "(" | "{", body: string): string {
  if (open === "(") return samplePath(splitTopLevel(body, "|")[0] ?? "");
  const alternatives = splitTopLevel(body, ",");
  if (alternatives.length > 1) return samplePath(alternatives[0] ?? "");
  const range = /^([^.]+)\.\.[^.]+(?:\.\.[^.]+)?$/.exec(body);
  // `{x}` without a comma or range is literal to picomatch.
  return range === null ? `{${samplePath(body)}}` : (range[1] as string);
}

function bracketSample(bracket: string): string {
  const matcher = picomatch(bracket, OPTIONS);
  const candidates = [...new Set([...bracket.slice(1, -1), ..."a0A_-z9Z.~ \t"])];
  return candidates.find((candidate) => candidate !== "/" && matcher(candidate)) ?? "";
}

/** The index of the `)`, `}` or `]` closing the group opened at `open`; the end of the text if none. */
function closingIndex(text: string, open: number): number {
  let index = open + 1;
  if (text[open] === "[") {
    if (text[index] === "!" || text[index] === "^") index += 1;
    if (text[index] === "]") index += 1;
    while (index < text.length && text[index] !== "]") {
      if (text[index] === "\\") index += 1;
      else if (text[index] === "[" && text[index + 1] === ":") {
        const close = text.indexOf(":]", index + 2);
        if (close !== -1) index = close + 1;
      }
      index += 1;
    }
    return index;
  }
  const close = text[open] === "(" ? ")" : "}";
  while (index < text.length && text[index] !== close) {
    const char = text[index];
    if (char === "\\") index += 2;
    else if (char === "(" || char === "{" || char === "[") index = closingIndex(text, index) + 1;
    else index += 1;
  }
  return index;
}

/** Splits at `separator` where it is outside every group and not escaped. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char === "\\") index += 2;
    else if (char === "(" || char === "{" || char === "[") index = closingIndex(text, index) + 1;
    else if (char === separator) {
      parts.push(text.slice(start, index));
      index += 1;
      start = index;
    } else index += 1;
  }
  parts.push(text.slice(start));
  return parts;
}
