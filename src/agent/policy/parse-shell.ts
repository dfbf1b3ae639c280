/**
 * A best-effort shell lexer for policy checks: splits a command line into simple commands (words
 * with quotes removed, plus redirections), following `;`, `&&`, `||`, `|`, `&`, newlines,
 * subshells, `$(...)` (also inside `$((...))`), backticks, process substitution, ANSI-C quoting
 * (`$'\x72m'` is `rm`), `coproc`, `bash -c` and `eval` strings, heredocs and here-strings fed to a
 * shell, and the substitutions in an unquoted heredoc body.
 *
 * This pre-filter is advisory, not a boundary: a shell has more ways to hide a command than any
 * lexer can follow (variables, `printf … | sh`, a script written first and run later). It exists to
 * stop the obvious early, with a reason the model can act on, and without false alarms on quoted
 * text such as a commit message that says "reboot". The boundaries are the sandbox, which confines
 * what a command can reach, and the host's check of the exact commit before every push.
 */
export interface Redirect {
  op: string;
  target: string;
}

export interface SimpleCommand {
  words: string[];
  redirects: Redirect[];
  /** The operator after this command: "|", "&&", "||", ";", "&", or "" at the end. */
  next: string;
}

/** Nested shells beyond this depth are not unpacked (`bash -c "bash -c '...'"`). */
export const MAX_SHELL_DEPTH = 4;

export interface ParsedShell {
  /** The simple commands of the line and of the shell scripts it runs, down to MAX_SHELL_DEPTH. */
  commands: SimpleCommand[];
  /** A script nested deeper than MAX_SHELL_DEPTH was left unread: a rule that must see it all cannot. */
  deeper: boolean;
}

export function parseShell(command: string): SimpleCommand[] {
  return parseShellLayers(command).commands;
}

/** parseShell, and whether a shell nested too deep to be unpacked was left unread. */
export function parseShellLayers(command: string): ParsedShell {
  const parsed: ParsedShell = { commands: [], deeper: false };
  parsed.commands = parseAt(command, 0, parsed);
  return parsed;
}

function parseAt(command: string, depth: number, parsed: ParsedShell): SimpleCommand[] {
  const lexer = new Lexer(command, depth);
  lexer.run();
  const commands = lexer.commands;
  const scripts = [
    ...commands.flatMap((simple) => shellScriptArgument(simple.words) ?? []),
    ...lexer.stdinScripts.flatMap(({ words, script }) => (shellReadsStdin(words) ? [script] : [])),
  ];
  if (depth >= MAX_SHELL_DEPTH) {
    if (scripts.length > 0) parsed.deeper = true;
    return commands;
  }
  return [...commands, ...scripts.flatMap((script) => parseAt(script, depth + 1, parsed))];
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "fish"]);

/** The script of `bash -c '...'` or `eval ...`, if this is one. */
function shellScriptArgument(words: readonly string[]): string | undefined {
  const { name, args } = commandName(words);
  if (name === "eval") return args.join(" ");
  if (!SHELLS.has(name)) return undefined;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === "--") return undefined;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) return args[i + 1];
    if (!arg.startsWith("-")) return undefined;
  }
  return undefined;
}

/** Words that come before the real command name. */
const KEYWORDS = new Set(["{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time", "(", ")"]);
/** Commands that run their arguments as a command; `value` lists the flags that take a value. */
const WRAPPERS: Record<string, { valueFlags: ReadonlySet<string>; positional?: number }> = {
  sudo: { valueFlags: new Set(["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U"]) },
  doas: { valueFlags: new Set(["-u", "-C"]) },
  env: { valueFlags: new Set(["-u", "-C", "-S"]) },
  nohup: { valueFlags: new Set() },
  nice: { valueFlags: new Set(["-n"]) },
  ionice: { valueFlags: new Set(["-c", "-n", "-p"]) },
  stdbuf: { valueFlags: new Set(["-i", "-o", "-e"]) },
  timeout: { valueFlags: new Set(["-s", "-k", "--signal", "--kill-after"]), positional: 1 },
  command: { valueFlags: new Set() },
  builtin: { valueFlags: new Set() },
  exec: { valueFlags: new Set(["-a"]) },
  xargs: { valueFlags: new Set(["-I", "-n", "-P", "-d", "-E", "-L", "-s", "-a"]) },
};

export interface CommandName {
  /** Base name of the program run (`/usr/bin/rm` -> `rm`), "" when there is none. */
  name: string;
  args: string[];
  /** Wrappers skipped on the way, e.g. ["sudo"]. */
  wrappers: string[];
}

/** Finds the program a simple command runs, past assignments, keywords and wrappers like sudo. */
export function commandName(words: readonly string[]): CommandName {
  const wrappers: string[] = [];
  let i = 0;
  while (i < words.length) {
    const word = words[i] as string;
    if (KEYWORDS.has(word) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      i += 1;
      continue;
    }
    if (word === "coproc") {
      // `coproc cmd args`, or `coproc NAME { cmd; }`: the command runs either way.
      i += words[i + 2] === "{" ? 2 : 1;
      continue;
    }
    const base = word.slice(word.lastIndexOf("/") + 1);
    const wrapper = WRAPPERS[base];
    if (wrapper === undefined) return { name: base, args: words.slice(i + 1), wrappers };
    wrappers.push(base);
    i += 1;
    let positional = wrapper.positional ?? 0;
    while (i < words.length) {
      const arg = words[i] as string;
      if (arg === "--") {
        i += 1;
        break;
      }
      if (arg.startsWith("-")) {
        i += wrapper.valueFlags.has(arg) ? 2 : 1;
        continue;
      }
      if (base === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
        i += 1;
        continue;
      }
      if (positional > 0) {
        positional -= 1;
        i += 1;
        continue;
      }
      break;
    }
  }
  return { name: "", args: [], wrappers };
}

/** Splits arguments into flags and operands (everything after `--` is an operand). */
export function splitArgs(args: readonly string[]): { flags: string[]; operands: string[] } {
  const flags: string[] = [];
  const operands: string[] = [];
  let afterDashes = false;
  for (const arg of args) {
    if (!afterDashes && arg === "--") afterDashes = true;
    else if (!afterDashes && arg.startsWith("-") && arg.length > 1) flags.push(arg);
    else operands.push(arg);
  }
  return { flags, operands };
}

/** For each `(` of `text`, the index of the `)` that closes it by counting parentheses alone (-1: none), in one pass. */
function closingParens(text: string): Int32Array {
  const closes = new Int32Array(text.length).fill(-1);
  const open: number[] = [];
  for (let index = 0; index < text.length; index += 1) {
    if (text[index] === "(") open.push(index);
    else if (text[index] === ")") {
      const from = open.pop();
      if (from !== undefined) closes[from] = index;
    }
  }
  return closes;
}

class Lexer {
  readonly commands: SimpleCommand[] = [];
  /** Heredoc bodies and here-strings, with the words of the command that reads them (a shell runs them). */
  readonly stdinScripts: Array<{ words: readonly string[]; script: string }> = [];
  private readonly nested: SimpleCommand[] = [];
  private words: string[] = [];
  private redirects: Redirect[] = [];
  private word: string | undefined;
  private pendingRedirect: string | undefined;
  /** Whether a quote or backslash went into the current word (a quoted heredoc delimiter stops expansion). */
  private wordQuoted = false;
  private heredocs: Heredoc[] = [];
  private i = 0;

  constructor(
    private readonly text: string,
    private readonly depth: number,
    /** Where each `(` of the text closes, shared by the lexers of its substitutions (see `closingParens`). */
    private closes?: Int32Array,
  ) {}

  run(): void {
    this.lex(undefined);
    this.endCommand("");
    this.commands.push(...this.nested);
  }

  /** Lexes until `terminator` (")" or "`") at this level, or the end of the text. */
  private lex(terminator: string | undefined): void {
    const text = this.text;
    while (this.i < text.length) {
      const char = text[this.i] as string;
      const next = text[this.i + 1];
      if (terminator !== undefined && char === terminator) {
        this.i += 1;
        return;
      }
      if (char === " " || char === "\t") {
        this.endWord();
        this.i += 1;
      } else if (char === "\n") {
        this.endCommand(";");
        this.i += 1;
        this.readHeredocBodies();
      } else if (char === "#" && this.word === undefined) {
        while (this.i < text.length && text[this.i] !== "\n") this.i += 1;
      } else if (char === ";") {
        this.endCommand(";");
        this.i += next === ";" ? 2 : 1;
      } else if (char === "&" && next === ">") {
        this.startRedirect(text[this.i + 2] === ">" ? "&>>" : "&>");
      } else if (char === "&" || char === "|") {
        const op = next === char ? char + char : char;
        this.endCommand(op);
        this.i += op.length + (op === "|" && next === "&" ? 1 : 0);
      } else if (char === ">") {
        if (next === "(") this.substitution(2, ")");
        else this.startRedirect(next === ">" ? ">>" : next === "|" ? ">|" : next === "&" ? ">&" : ">");
      } else if (char === "<") {
        if (next === "(") this.substitution(2, ")");
        else this.inputRedirect();
      } else if (char === "(" || char === ")") {
        this.endCommand(";");
        this.i += 1;
      } else if (char === "'") {
        const end = text.indexOf("'", this.i + 1);
        const stop = end === -1 ? text.length : end;
        this.append(text.slice(this.i + 1, stop));
        this.wordQuoted = true;
        this.i = stop + 1;
      } else if (char === '"') {
        this.doubleQuoted();
      } else if (char === "\\") {
        if (next !== undefined && next !== "\n") this.append(next);
        this.wordQuoted = true;
        this.i += 2;
      } else if (char === "$" && next === "'") {
        this.ansiCQuoted();
      } else if (char === "$" && next === '"') {
        // `$"..."` is a translatable string: double-quoted text for our purposes.
        this.i += 1;
        this.doubleQuoted();
      } else if (char === "$" && next === "(") {
        this.dollarParen();
      } else if (char === "`") {
        this.substitution(1, "`");
      } else {
        this.append(char);
        this.i += 1;
      }
    }
  }

  private append(text: string): void {
    this.word = (this.word ?? "") + text;
  }

  private endWord(): void {
    if (this.word === undefined) return;
    const word = this.word;
    const quoted = this.wordQuoted;
    this.word = undefined;
    this.wordQuoted = false;
    if (this.pendingRedirect !== undefined) {
      if (this.pendingRedirect === "<<<") {
        this.stdinScripts.push({ words: this.words, script: word });
      } else if (this.pendingRedirect.startsWith("<<")) {
        this.heredocs.push({ delimiter: word, stripTabs: this.pendingRedirect === "<<-", expands: !quoted, words: this.words });
      } else if (this.pendingRedirect !== "<") {
        this.redirects.push({ op: this.pendingRedirect, target: word });
      }
      this.pendingRedirect = undefined;
      return;
    }
    this.words.push(word);
  }

  private endCommand(next: string): void {
    this.endWord();
    this.pendingRedirect = undefined;
    if (this.words.length > 0 || this.redirects.length > 0) {
      this.commands.push({ words: this.words, redirects: this.redirects, next });
    } else if (next !== ";" && next !== "" && this.commands.length > 0) {
      // `a | (b)`: keep the pipe on the command before the subshell.
      const last = this.commands[this.commands.length - 1] as SimpleCommand;
      if (last.next === ";" || last.next === "") last.next = next;
    }
    this.words = [];
    this.redirects = [];
  }

  private startRedirect(op: string): void {
    // `2>file`: the digits before the operator are a file descriptor, not a word.
    if (this.word !== undefined && /^\d+$/.test(this.word)) this.word = undefined;
    this.endWord();
    this.i += op.length;
    if (op === ">&" || op === "&>" || op === "&>>") {
      // `>&2` duplicates a descriptor; `>& file` and `&> file` write a file.
      const rest = this.text.slice(this.i).match(/^\s*(\d+|-)(?=[\s;&|)]|$)/);
      if (rest && op === ">&") {
        this.i += rest[0].length;
        return;
      }
    }
    this.pendingRedirect = op;
  }

  private inputRedirect(): void {
    if (this.word !== undefined && /^\d+$/.test(this.word)) this.word = undefined;
    this.endWord();
    const op = this.text.startsWith("<<<", this.i) ? "<<<" : this.text.startsWith("<<-", this.i) ? "<<-" : this.text.startsWith("<<", this.i) ? "<<" : "<";
    this.i += op.length;
    this.pendingRedirect = op;
  }

  private doubleQuoted(): void {
    const text = this.text;
    this.wordQuoted = true;
    this.i += 1;
    let content = "";
    while (this.i < text.length && text[this.i] !== '"') {
      const char = text[this.i] as string;
      if (char === "\\" && this.i + 1 < text.length) {
        content += text[this.i + 1];
        this.i += 2;
      } else if (char === "$" && text[this.i + 1] === "(") {
        this.append(content);
        content = "";
        this.dollarParen();
      } else if (char === "`") {
        this.append(content);
        content = "";
        this.substitution(1, "`");
      } else {
        content += char;
        this.i += 1;
      }
    }
    this.append(content);
    this.i += 1;
  }

  /** `$(...)`, backticks, `<(...)`: the inner commands are checked as commands of their own. */
  private substitution(openLength: number, terminator: string): void {
    const inner = new Lexer(this.text, this.depth, this.closes);
    inner.i = this.i + openLength;
    inner.lex(terminator);
    inner.endCommand("");
    this.adopt(inner);
    this.i = inner.i;
    this.append("$(...)");
  }

  private adopt(inner: Lexer): void {
    this.nested.push(...inner.commands, ...inner.nested);
    this.stdinScripts.push(...inner.stdinScripts);
  }

  /** `$((…))` is arithmetic when its parentheses close as `))`; otherwise `$( (…) … )`, a substitution. */
  private dollarParen(): void {
    if (this.text[this.i + 2] === "(" && this.arithmeticEnd(this.i + 3) !== -1) this.arithmetic();
    else this.substitution(2, ")");
  }

  /**
   * Where the `))` closing an arithmetic expansion starts, or -1 when the parentheses close apart: the
   * `)` matching the `(` before `from`, looked up in a table built once per command. Scanning to it from
   * every `$((` read the rest of the command each time (`$((()` repeated: 11.7 s on 160 KB).
   */
  private arithmeticEnd(from: number): number {
    this.closes ??= closingParens(this.text);
    const close = this.closes[from - 1] ?? -1;
    if (close === -1 || close >= this.text.length) return -1;
    return this.text[close + 1] === ")" ? close : -1;
  }

  /** The expression is not a command, but the `$(…)` and backticks inside it run. */
  private arithmetic(): void {
    const end = this.arithmeticEnd(this.i + 3);
    // A prefix of the same text: a `(` that closes past its end reads as unclosed there.
    const inner = new Lexer(this.text.slice(0, end), this.depth, this.closes);
    inner.i = this.i + 3;
    inner.expansions();
    this.adopt(inner);
    this.i = end + 2;
    this.append("0");
  }

  /** Only the command substitutions in the text: an arithmetic expression, an unquoted heredoc body. */
  private expansions(): void {
    const text = this.text;
    while (this.i < text.length) {
      const char = text[this.i];
      if (char === "\\") this.i += 2;
      else if (char === "$" && text[this.i + 1] === "(") this.dollarParen();
      else if (char === "`") this.substitution(1, "`");
      else this.i += 1;
    }
  }

  /** `$'…'`: backslash escapes decoded as bash does, so `$'\x72m'` is seen as `rm`. */
  private ansiCQuoted(): void {
    const text = this.text;
    this.i += 2;
    let content = "";
    while (this.i < text.length && text[this.i] !== "'") {
      if (text[this.i] === "\\" && this.i + 1 < text.length) {
        const { value, length } = ansiCEscape(text, this.i + 1);
        content += value;
        this.i += 1 + length;
      } else {
        content += text[this.i];
        this.i += 1;
      }
    }
    this.append(content);
    this.wordQuoted = true;
    this.i += 1;
  }

  /**
   * Reads the bodies of the heredocs started on the line just ended. A body fed to a shell is a
   * script and is parsed as one; an unquoted body expands `$(…)` and backticks, whatever reads it.
   */
  private readHeredocBodies(): void {
    const text = this.text;
    for (const heredoc of this.heredocs.splice(0)) {
      const lines: string[] = [];
      while (this.i < text.length) {
        const end = text.indexOf("\n", this.i);
        const lineEnd = end === -1 ? text.length : end;
        let line = text.slice(this.i, lineEnd);
        if (heredoc.stripTabs) line = line.replace(/^\t+/, "");
        this.i = lineEnd + 1;
        if (line === heredoc.delimiter) break;
        lines.push(line);
      }
      const body = lines.join("\n");
      // Whether the command is a shell is known once its line is read, so parseAt decides.
      this.stdinScripts.push({ words: heredoc.words, script: body });
      if (heredoc.expands && !shellReadsStdin(heredoc.words)) {
        const inner = new Lexer(body, this.depth);
        inner.expansions();
        this.adopt(inner);
      }
    }
  }
}

interface Heredoc {
  delimiter: string;
  stripTabs: boolean;
  /** An unquoted delimiter: the body's `$(…)` and backticks run. */
  expands: boolean;
  /** The words of the command the heredoc belongs to (filled in as the line is read). */
  words: readonly string[];
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** One escape of a `$'…'` string, starting after its backslash: the text it stands for and how many characters it took. */
function ansiCEscape(text: string, at: number): { value: string; length: number } {
  const char = text[at] as string;
  const simple = SIMPLE_ESCAPES[char];
  if (simple !== undefined) return { value: simple, length: 1 };
  const numeric = (pattern: RegExp, radix: number, skip: number) => {
    const digits = pattern.exec(text.slice(at + skip))?.[0];
    if (digits === undefined || digits === "") return undefined;
    const code = Number.parseInt(digits, radix);
    return { value: code <= 0x10ffff ? String.fromCodePoint(code) : "", length: skip + digits.length };
  };
  const decoded =
    char === "x"
      ? numeric(/^[0-9a-fA-F]{1,2}/, 16, 1)
      : char === "u"
        ? numeric(/^[0-9a-fA-F]{1,4}/, 16, 1)
        : char === "U"
          ? numeric(/^[0-9a-fA-F]{1,8}/, 16, 1)
          : /[0-7]/.test(char)
            ? numeric(/^[0-7]{1,3}/, 8, 0)
            : undefined;
  if (decoded !== undefined) return decoded;
  if (char === "c" && at + 1 < text.length) {
    return { value: String.fromCharCode((text.charCodeAt(at + 1) & 0x1f) >>> 0), length: 2 };
  }
  // Unknown escapes stay as written, backslash included.
  return { value: `\\${char}`, length: 1 };
}

/** A shell that takes its script from stdin: `bash`, `sh -s arg`, `bash -`, `source /dev/stdin`. */
function shellReadsStdin(words: readonly string[]): boolean {
  const { name, args } = commandName(words);
  if (name === "source" || name === ".") return args[0] === "/dev/stdin" || args[0] === "/proc/self/fd/0";
  if (!SHELLS.has(name)) return false;
  for (const arg of args) {
    if (arg === "-" || arg === "--") return true;
    if (!arg.startsWith("-") && !arg.startsWith("+")) return false; // a script file
    if (/^-[a-zA-Z]*c/.test(arg)) return false; // `-c script` reads its script from the argument
    if (/^-[a-zA-Z]*s/.test(arg)) return true;
  }
  return true;
}
