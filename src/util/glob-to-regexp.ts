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
}

export function globToRegExp(glob: string, options: GlobOptions = {}): RegExp {
  let pattern = glob.startsWith("./") ? glob.slice(2) : glob;
  if (options.matchBase === true && !pattern.includes("/")) pattern = `**/${pattern}`;
  return new RegExp(`^${translate(pattern)}$`);
}

export function matchesGlob(path: string, glob: string, options: GlobOptions = {}): boolean {
  return globToRegExp(glob, options).test(path);
}

/** Builds one predicate for several globs (a path matching any of them). */
export function createGlobMatcher(globs: readonly string[], options: GlobOptions = {}): (path: string) => boolean {
  const regexps = globs.map((glob) => globToRegExp(glob, options));
  return (path) => regexps.some((regexp) => regexp.test(path));
}

function translate(glob: string): string {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const char = glob[i] as string;
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const atSegmentStart = i === 0 || glob[i - 1] === "/";
        const next = glob[i + 2];
        if (atSegmentStart && next === "/") {
          out += "(?:.*/)?"; // `**/` : zero or more directories
          i += 3;
          continue;
        }
        if (atSegmentStart && next === undefined) {
          // A trailing `/**` also matches the directory itself: `.git/**` covers `.git`.
          if (out.endsWith("/")) out = `${out.slice(0, -1)}(?:/.*)?`;
          else out += ".*";
          i += 2;
          continue;
        }
        out += "[^/]*";
        i += 2;
        continue;
      }
      out += "[^/]*";
      i += 1;
      continue;
    }
    if (char === "?") {
      out += "[^/]";
      i += 1;
      continue;
    }
    if (char === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end !== -1) {
        let body = glob.slice(i + 1, end);
        if (body.startsWith("!")) body = `^${body.slice(1)}`;
        out += `[${body.replace(/\\/g, "\\\\")}]`;
        i = end + 1;
        continue;
      }
    }
    if (char === "{") {
      const end = matchingBrace(glob, i);
      if (end !== -1) {
        const alternatives = splitAlternatives(glob.slice(i + 1, end));
        out += `(?:${alternatives.map(translate).join("|")})`;
        i = end + 1;
        continue;
      }
    }
    if (char === "\\" && i + 1 < glob.length) {
      out += escapeChar(glob[i + 1] as string);
      i += 2;
      continue;
    }
    out += escapeChar(char);
    i += 1;
  }
  return out;
}

function escapeChar(char: string): string {
  return /[.*+?^${}()|[\]\\]/.test(char) ? `\\${char}` : char;
}

function matchingBrace(glob: string, open: number): number {
  let depth = 0;
  for (let i = open; i < glob.length; i += 1) {
    if (glob[i] === "{") depth += 1;
    else if (glob[i] === "}") {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
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
