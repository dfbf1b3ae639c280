import { compileGlobMachine, GLOB_MAX_CHARS, type GlobMachine, GlobSyntaxError } from "./glob-machine.js";

/**
 * One repository path pattern (a `protected_paths` entry), compiled by the host's own glob machine
 * (`glob-machine.ts`): `*`, `?`, `**`, `[...]` with POSIX classes (`[[:digit:]]`), `{a,b}` and ranges
 * (`{1..3}`, `{01..10}`, `{a..e}`, `{1..9..2}`), and extglobs (`+(a|b)`, `!(x)`, `@(…)`, `?(…)`,
 * `*(…)`). Wildcards match dotfiles: for a protected path a missed `.env` costs more than a
 * surprising match. A pattern without a slash matches a name at any depth, as in `.gitignore`. A
 * leading `./` is dropped. Testing a path costs its length times the pattern's size, whatever both
 * hold: the entries are a repository's (hostile) and the paths the model's.
 */
export interface PathPattern {
  /** The pattern as written. */
  readonly source: string;
  /** False for a pattern without a slash, which matches at any depth. */
  readonly anchored: boolean;
  /** States plus edges of its machine: the most one character of a path can cost (`createPathMatcher` bounds a list's sum). */
  readonly size: number;
  /**
   * Runs the pattern over `relativePath` within `stepLimit`: whether the path matches (`dir/**` also
   * matches `dir` itself), whether some path strictly below it as a directory could (asked with
   * `asksBelow`, the default; false otherwise), and the steps spent.
   */
  run(relativePath: string, stepLimit: number, asksBelow?: boolean): PathRun;
}

export interface PathRun {
  matched: boolean;
  /** Some path strictly below this one, as a directory, could match. */
  matchesBelow: boolean;
  steps: number;
  /** The run stopped at its step limit: the answers are unknown (the caller protects the path). */
  exhausted: boolean;
}

export type CompiledPathPattern = { ok: true; pattern: PathPattern } | { ok: false; problem: string };

/**
 * Compiles a pattern, or says why it cannot match what it seems to name: a syntax error (an unclosed
 * `[`, `{` or extglob, a bad range), a shape no repository path has (`/abs`, `dir/`, `a/../b`), or a
 * pattern that matches no text at all (`[!/]` holds no character a name can have, `!(*)` excludes every name).
 */
export function compilePathPattern(source: string): CompiledPathPattern {
  const glob = source.startsWith("./") ? source.slice(2) : source;
  if (glob.length > GLOB_MAX_CHARS) return { ok: false, problem: `\`${source.slice(0, 40)}…\` has ${glob.length} characters; at most ${GLOB_MAX_CHARS}` };
  const shapeProblem = shapeProblemOf(glob);
  if (shapeProblem !== undefined) return { ok: false, problem: `\`${source}\` ${shapeProblem}` };

  const anchored = glob.includes("/");
  let machine: GlobMachine;
  try {
    machine = compileGlobMachine(anchored ? glob : `**/${glob}`, { strict: true });
  } catch (error) {
    if (!(error instanceof GlobSyntaxError)) throw error;
    return { ok: false, problem: `\`${source}\` is not a valid glob: ${error.message}` };
  }
  if (!machine.matchesARealPath) {
    return {
      ok: false,
      problem: `\`${source}\` cannot match any path as written (nothing it matches is a name, or a path without an empty, \`.\` or \`..\` segment)`,
    };
  }

  return {
    ok: true,
    pattern: {
      source,
      anchored,
      size: machine.size,
      run: (relativePath, stepLimit, asksBelow = true) => {
        const whole = machine.run(relativePath, stepLimit);
        if (whole.exhausted) return { matched: false, matchesBelow: false, steps: whole.steps, exhausted: true };
        if (!asksBelow) return { matched: whole.matched, matchesBelow: false, steps: whole.steps, exhausted: false };
        // Below the root is any path; below `dir`, whatever continues `dir/`.
        const below = relativePath === "" ? whole : machine.run(`${relativePath}/`, stepLimit - whole.steps);
        return {
          matched: whole.matched,
          matchesBelow: below.couldContinue,
          steps: whole.steps + below.steps,
          exhausted: below.exhausted,
        };
      },
    },
  };
}

function shapeProblemOf(glob: string): string | undefined {
  if (glob.startsWith("/")) return "starts with `/`; paths are relative to the repository root, so drop it";
  if (glob.startsWith("!") && !glob.startsWith("!(")) {
    return "starts with `!`; entries only add protection, so list what to protect (write `\\!` for a name starting with `!`)";
  }
  if (/(?:^|[^\\])(?:\\\\)*\\$/.test(glob)) return "ends with a `\\` that escapes nothing";
  if (glob.endsWith("/")) return `ends with \`/\`; write \`${glob}**\` to protect a directory and everything in it`;
  if (glob.includes("//")) return "has an empty path segment (`//`)";
  if (/(?:^|\/)\.{1,2}(?:\/|$)/.test(glob)) return "has a `.` or `..` segment, which no repository path has";
  return undefined;
}
