import path from "node:path";
import { BLOCKED_CHECK_BUDGET, BLOCKED_REGEX_MAX_INPUT, type BlockedCommandEntry, blockedRegexCost, parseBlockedCommand } from "../../config/index.js";
import { commandName, type ParsedShell, splitArgs, type SimpleCommand } from "./parse-shell.js";

/**
 * Rules over parsed Bash commands. Each returns a reason when it fires. They are best effort: the
 * sandbox confines what a command can reach, and the host re-checks the diff before every push.
 */

const SYSTEM_DIRS = new Set([
  "bin",
  "boot",
  "dev",
  "etc",
  "home",
  "lib",
  "lib32",
  "lib64",
  "libx32",
  "mnt",
  "media",
  "nix",
  "opt",
  "proc",
  "root",
  "run",
  "sbin",
  "snap",
  "srv",
  "sys",
  "usr",
  "var",
  "Applications",
  "Library",
  "System",
  "Users",
  "Volumes",
  "private",
]);

const DISK_DEVICE = /^\/dev\/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|md\d|dm-\d|mapper\/|root$)/;

/**
 * The head of a function definition, `name() {`, starting only where a name can start (a one-pass
 * regex over the command without the look-behind retried every position of a long word: quadratic).
 */
const FUNCTION_HEAD = /(?<![\w:.])([A-Za-z_:.][\w:.]*)\s*\(\)\s*\{/g;

/**
 * `name() { … name | name & … }`. Each body is read up to its first `}` or the next definition, so
 * no text is read twice and the check is linear in the command, whatever the model sends.
 */
function isForkBomb(command: string): boolean {
  const heads = [...command.matchAll(FUNCTION_HEAD)];
  for (const [i, head] of heads.entries()) {
    const name = head[1] as string;
    const start = head.index + head[0].length;
    const brace = command.indexOf("}", start);
    const end = Math.min(brace === -1 ? command.length : brace, heads[i + 1]?.index ?? command.length);
    const escaped = name.replace(/[.]/g, "\\.");
    if (new RegExp(`(?<![\\w:.])${escaped}\\s*\\|\\s*${escaped}\\s*&`).test(command.slice(start, end))) return true;
  }
  return false;
}

/** `/`, `/*`, `~`, `$HOME`, a top-level system directory, or everything in one. */
export function isCatastrophicTarget(arg: string): boolean {
  const target = arg.trim().replace(/^(?:\$HOME|\$\{HOME\})(?=\/|$)/, "~");
  if (/^~\/?(?:\.?\*)?$/.test(target)) return true;
  if (!target.startsWith("/")) return false;
  const normalized = path.posix.normalize(target).replace(/\/+$/, "") || "/";
  if (normalized === "/" || normalized === "/*" || normalized === "/.*") return true;
  const topLevel = /^\/([^/]+)(?:\/\.?\*)?$/.exec(normalized);
  return topLevel !== null && SYSTEM_DIRS.has(topLevel[1] as string);
}

function isRecursive(flags: readonly string[]): boolean {
  return flags.some((flag) => flag === "--recursive" || /^-[a-zA-Z]*[rR]/.test(flag));
}

/** Commands that would wreck the machine or the user's home, whatever the repository. */
export function catastrophicReason(command: string, commands: readonly SimpleCommand[]): string | undefined {
  if (isForkBomb(command)) return "a fork bomb";
  for (const simple of commands) {
    if (simple.words.includes("--no-preserve-root")) return "--no-preserve-root";
    for (const redirect of simple.redirects) {
      if (DISK_DEVICE.test(redirect.target)) return `writing to the disk device ${redirect.target}`;
    }
    const reason = catastrophicCommand(simple);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

function catastrophicCommand(simple: SimpleCommand): string | undefined {
  const { name, args } = commandName(simple.words);
  const { flags, operands } = splitArgs(args);
  const wrecked = operands.find(isCatastrophicTarget);
  switch (name) {
    case "rm":
      if (isRecursive(flags) && wrecked !== undefined) return `rm -r on ${wrecked}`;
      return undefined;
    case "chmod":
    case "chown":
    case "chgrp":
      if (isRecursive(flags) && wrecked !== undefined) return `${name} -R on ${wrecked}`;
      return undefined;
    case "mv": {
      const source = operands.slice(0, -1).find(isCatastrophicTarget);
      return source === undefined ? undefined : `moving ${source}`;
    }
    case "find":
      if (wrecked !== undefined && args.some((arg) => arg === "-delete" || arg === "rm")) return `find ${wrecked} deleting files`;
      return undefined;
    case "dd": {
      const output = args.find((arg) => arg.startsWith("of="))?.slice(3);
      return output !== undefined && DISK_DEVICE.test(output) ? `dd onto the disk device ${output}` : undefined;
    }
    case "shred":
    case "wipefs":
      return operands.some((operand) => operand.startsWith("/dev/")) ? `${name} on a device` : undefined;
    case "mke2fs":
    case "mkswap":
    case "fdisk":
    case "sfdisk":
    case "parted":
      return `${name} (disk formatting)`;
    case "shutdown":
    case "reboot":
    case "halt":
    case "poweroff":
      return `${name} of the machine`;
    case "init":
    case "telinit":
      return operands.some((operand) => operand === "0" || operand === "6") ? `${name} ${operands.join(" ")}` : undefined;
    case "systemctl":
      return operands.some((operand) => /^(?:poweroff|reboot|halt|kexec)$/.test(operand)) ? `systemctl ${operands.join(" ")}` : undefined;
    case "kill":
      return args.length >= 2 && args[args.length - 1] === "-1" ? "kill -1 (every process)" : undefined;
    default:
      return name.startsWith("mkfs") ? `${name} (disk formatting)` : undefined;
  }
}

/**
 * Why a command is refused under the repository's `blocked_commands`: an entry matches it, or it
 * cannot be checked in bounded time (regular-expression entries and a text over
 * BLOCKED_REGEX_MAX_INPUT characters, or texts whose check would cost over BLOCKED_CHECK_BUDGET), or
 * it runs a shell nested deeper than the parser unpacks, whose commands no entry would see.
 */
export type BlockedVerdict =
  | { kind: "blocked"; entry: string }
  | { kind: "too_long" }
  | { kind: "too_costly"; texts: number; characters: number }
  | { kind: "too_deep" };

/**
 * The first `blocked_commands` entry that matches the command: substrings with collapsed whitespace,
 * or `/regex/flags` (checked when the config was read; an entry that fails to parse here matches
 * nothing), tried on the whole line and on each simple command, nested scripts' too. A command that
 * cannot be checked whole is refused rather than checked in part.
 */
export function blockedCommandMatch(command: string, parsed: ParsedShell, blocked: readonly string[]): BlockedVerdict | undefined {
  if (blocked.length === 0) return undefined;
  const texts = [...new Set([collapse(command), ...parsed.commands.map((simple) => collapse(simple.words.join(" ")))])];
  const entries = parsedEntries(blocked);
  const regexes = entries.flatMap(({ parsed: entry }) => (entry.kind === "regex" ? [entry] : []));
  if (regexes.length > 0) {
    if (texts.some((text) => text.length > BLOCKED_REGEX_MAX_INPUT)) return { kind: "too_long" };
    let cost = 0;
    for (const regex of regexes) for (const text of texts) cost += blockedRegexCost(regex.cost, text.length);
    if (cost > BLOCKED_CHECK_BUDGET) return { kind: "too_costly", texts: texts.length, characters: texts.reduce((sum, text) => sum + text.length, 0) };
  }
  if (parsed.deeper) return { kind: "too_deep" };
  for (const { entry, parsed: pattern } of entries) {
    if (pattern.kind === "invalid") continue;
    const needle = collapse(entry);
    if (needle === "") continue;
    const hit = texts.some((text) => (pattern.kind === "regex" ? pattern.regex.test(text) : text.includes(needle)));
    if (hit) return { kind: "blocked", entry };
  }
  return undefined;
}

/** Entries parsed once per list (the policy engine holds one list per job), not on every Bash call. */
const parsedLists = new WeakMap<readonly string[], Array<{ entry: string; parsed: BlockedCommandEntry }>>();
function parsedEntries(blocked: readonly string[]) {
  let entries = parsedLists.get(blocked);
  if (entries === undefined) {
    entries = blocked.map((entry) => ({ entry, parsed: parseBlockedCommand(entry) }));
    parsedLists.set(blocked, entries);
  }
  return entries;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export interface WriteTarget {
  path: string;
  /** Removes or moves what it names (a whole directory too), rather than writing into it. */
  destructive: boolean;
}

const REDIRECT_WRITES = new Set([">", ">>", ">|", "&>", "&>>", ">&"]);
const OPERANDS_WRITTEN = new Set(["touch", "truncate", "mkdir", "chmod", "chown", "chgrp", "tee", "unlink", "shred"]);
const OPERANDS_DESTROYED = new Set(["rm", "rmdir", "mv"]);
const LAST_OPERAND_WRITTEN = new Set(["cp", "install", "ln", "rsync"]);

/** The paths a command line obviously writes: redirections, tee, cp/mv targets, sed -i, rm... */
export function bashWriteTargets(commands: readonly SimpleCommand[]): WriteTarget[] {
  const targets: WriteTarget[] = [];
  for (const simple of commands) {
    for (const redirect of simple.redirects) {
      if (REDIRECT_WRITES.has(redirect.op)) targets.push({ path: redirect.target, destructive: false });
    }
    const { name, args } = commandName(simple.words);
    const { flags, operands } = splitArgs(args);
    const add = (paths: readonly string[], destructive: boolean) => {
      for (const target of paths) targets.push({ path: target, destructive });
    };
    if (OPERANDS_DESTROYED.has(name)) add(operands, true);
    else if (OPERANDS_WRITTEN.has(name)) add(operands, false);
    else if (LAST_OPERAND_WRITTEN.has(name)) {
      const dirFlag = args.findIndex((arg) => arg === "-t" || arg === "--target-directory");
      add(dirFlag >= 0 && args[dirFlag + 1] !== undefined ? [args[dirFlag + 1] as string] : operands.slice(-1), false);
    } else if ((name === "sed" || name === "perl") && flags.some((flag) => /^-[a-zA-Z]*i/.test(flag) || flag.startsWith("--in-place"))) {
      add(operands, false);
    } else if (name === "dd") {
      add(
        args.filter((arg) => arg.startsWith("of=")).map((arg) => arg.slice(3)),
        false,
      );
    } else if (name === "curl" || name === "wget") {
      const index = args.findIndex((arg) => arg === "-o" || arg === "-O" || arg === "--output" || arg === "--output-document");
      if (index >= 0 && args[index + 1] !== undefined) add([args[index + 1] as string], false);
    } else if (name === "git" && (operands[0] === "rm" || operands[0] === "mv")) {
      add(operands.slice(1), true);
    }
  }
  return targets;
}

/** Every operand and redirect target, for the sensitive-file check. */
export function bashPathOperands(commands: readonly SimpleCommand[]): string[] {
  const paths: string[] = [];
  for (const simple of commands) {
    const { args } = commandName(simple.words);
    paths.push(...splitArgs(args).operands, ...simple.redirects.map((redirect) => redirect.target));
  }
  return paths;
}

const DOWNLOADERS = new Set(["curl", "wget", "fetch"]);
const INTERPRETERS = /^(?:sh|bash|zsh|dash|ksh|ash|fish|python[\d.]*|perl|ruby|node|php)$/;
/** A shell named in a command, and a download substituted into it (`bash <(curl …)`, `sh -c "$(wget …)"`). */
const SHELL_WORD = /\b(?:ba|z|da|k)?sh\b/;
const DOWNLOAD_SUBSTITUTION = /(?:<\(|\$\(|`)\s*(?:curl|wget)\b/;

/**
 * A shell, then a download substituted later in the same list item (up to `|`, `;`, `&` or a line's
 * end). Each item is read once from its first shell on: if a later shell of the item is followed by
 * a substituted download, so is the first. One regex over the whole command instead retried the rest
 * of the item at every `sh`: quadratic (240,000 characters of `bash -c '`: over 30 s).
 */
function substitutesDownload(command: string): boolean {
  for (const item of command.split(/[|;&\n]/)) {
    const shell = SHELL_WORD.exec(item);
    if (shell !== null && DOWNLOAD_SUBSTITUTION.test(item.slice(shell.index + shell[0].length))) return true;
  }
  return false;
}

/** Commands a maintainer should approve: piping downloads into a shell, sudo, new packages. */
export function riskyReason(command: string, commands: readonly SimpleCommand[]): string | undefined {
  if (substitutesDownload(command)) return "runs a downloaded script";
  let pipelineDownloads = false;
  for (const simple of commands) {
    const { name, args, wrappers } = commandName(simple.words);
    if (wrappers.includes("sudo") || wrappers.includes("doas") || name === "sudo" || name === "doas" || name === "su") {
      return "runs a command as another user (sudo)";
    }
    if (pipelineDownloads && INTERPRETERS.test(name)) return `pipes a download into ${name}`;
    if (DOWNLOADERS.has(name)) pipelineDownloads = true;
    if (simple.next !== "|") pipelineDownloads = false;
    const install = packageInstall(name, args);
    if (install !== undefined) return `installs new packages (${install})`;
  }
  return undefined;
}

/** Returns the install command when `name args` adds a package that is not already declared. */
function packageInstall(name: string, args: readonly string[]): string | undefined {
  const { operands } = splitArgs(args);
  const [sub, ...rest] = operands;
  const named = rest.length > 0;
  const label = `${name} ${sub ?? ""}`.trim();
  switch (name) {
    case "npm":
    case "cnpm":
      return (sub === "install" || sub === "i" || sub === "add" || sub === "isntall") && named ? label : undefined;
    case "pnpm":
    case "bun":
      return sub === "add" || ((sub === "install" || sub === "i") && named) ? label : undefined;
    case "yarn":
      return sub === "add" || (sub === "global" && rest[0] === "add") ? label : undefined;
    case "pip":
    case "pip3":
    case "pipx":
      return sub === "install" && pipNamesPackages(args) ? label : undefined;
    case "python":
    case "python3":
      return args[0] === "-m" && args[1]?.startsWith("pip") === true && args.includes("install") && pipNamesPackages(args.slice(2)) ? "pip install" : undefined;
    case "uv":
      return sub === "add" || (sub === "pip" && rest[0] === "install") || (sub === "tool" && rest[0] === "install") ? label : undefined;
    case "poetry":
    case "cargo":
    case "bundle":
      return sub === "add" || (name === "cargo" && sub === "install") ? label : undefined;
    case "pipenv":
    case "gem":
    case "conda":
    case "brew":
    case "apt":
    case "apt-get":
    case "aptitude":
    case "yum":
    case "dnf":
    case "zypper":
      return sub === "install" ? label : undefined;
    case "apk":
      return sub === "add" ? label : undefined;
    case "go":
      return sub === "get" || (sub === "install" && rest.some((operand) => operand.includes("@"))) ? label : undefined;
    case "composer":
      return sub === "require" ? label : undefined;
    case "pacman":
      return args.some((arg) => /^-S/.test(arg)) ? "pacman -S" : undefined;
    default:
      return undefined;
  }
}

/** `pip install -r requirements.txt` and `pip install -e .` install what the repo declares; a name does not. */
function pipNamesPackages(args: readonly string[]): boolean {
  const valueFlags = new Set(["-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-t", "--target", "-i", "--index-url"]);
  let seenInstall = false;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (valueFlags.has(arg)) {
      i += 1;
      continue;
    }
    if (arg.startsWith("-")) continue;
    if (!seenInstall) {
      seenInstall = arg === "install";
      continue;
    }
    if (!/^\.{1,2}(?:\/|$)/.test(arg) && !arg.startsWith("/")) return true;
  }
  return false;
}
