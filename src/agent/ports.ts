/**
 * The narrow ports the agent's tools receive. Each is already bound to one worktree and one issue
 * when it is built; a tool never builds a client of its own. `src/workspace/` implements the disk,
 * process and git ports; `src/worker/` builds the issue and pulls ports over the GitHub client (or the
 * local-run stand-ins).
 */

import type { Masked } from "../util/redact.js";
import type { SurfaceMarkdown } from "../util/surface-markdown.js";

/** File access inside one worktree. Every path goes through the path guard. */
export interface FsPort {
  /** Absolute path of the worktree root (realpath). */
  readonly root: string;
  /**
   * Resolve a `file_path` as models send it (relative to the root, or absolute inside it) to an
   * absolute real path inside the worktree. Throws TackleError("path_outside_worktree") with a
   * message the model can act on for `..` escapes, symlinks that leave the tree, `.git` internals,
   * `/proc` and devices.
   */
  resolve(filePath: string, intent: "read" | "write"): Promise<string>;
  /** Path relative to the root, with forward slashes, for display and policy globs. */
  relative(absolutePath: string): string;
  /**
   * Reads a file the agent can write, through the workspace's one guarded reader: resolved like
   * `resolve`, opened without following a last symlink or blocking, refused unless a regular file
   * of at most `maxBytes`, with the job's processes paused. The only way a tool or the policy reads
   * worktree content on the host.
   */
  read(filePath: string, options: WorktreeReadOptions): Promise<WorktreeFile>;
  /**
   * Writes a file inside the worktree (guarded like `resolve`), creating parent directories. The
   * workspace gives new files to the sandbox user so the agent's shell can keep editing them, and
   * never follows a symlink in the last component.
   */
  writeFile(filePath: string, content: string): Promise<{ path: string; created: boolean }>;
}

export interface WorktreeReadOptions {
  /** A larger file is not read (kind "too_large"), judged by its size and again by what is read. */
  maxBytes: number;
  /** Stops the read (the job's signal). */
  signal?: AbortSignal;
}

/**
 * What a guarded read found at a path (its real path): a regular file's bytes, nothing, a directory,
 * or a regular file over the cap (`size`: at least this many bytes). Anything else is refused.
 */
export type WorktreeFile =
  | { kind: "file"; path: string; bytes: Buffer }
  | { kind: "missing"; path: string }
  | { kind: "directory"; path: string }
  | { kind: "too_large"; path: string; size: number };

export interface ExecOptions {
  /** Hard time limit; the process group is killed when it passes. */
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Combined stdout+stderr kept; the rest is counted and dropped while the process runs.
   * @defaultValue 1_000_000
   */
  maxOutputBytes?: number;
  /** Extra environment for this command only (never secrets). */
  env?: Record<string, string>;
  /** Allow outbound network (setup steps only). @defaultValue false */
  network?: boolean;
  /** Written to the command's stdin, which is then closed (a skill tool's JSON input). @defaultValue no stdin */
  input?: string;
}

export interface ExecResult {
  /** Interleaved stdout and stderr, capped at maxOutputBytes. */
  output: string;
  /** null when killed by a signal or the timeout. */
  exitCode: number | null;
  timedOut: boolean;
  /** Bytes dropped past the cap (0 when nothing was cut). */
  droppedBytes: number;
  durationMs: number;
}

/** Runs shell commands for the agent, sandboxed where bubblewrap is available. */
export interface ExecPort {
  readonly sandboxed: boolean;
  run(command: string, options: ExecOptions): Promise<ExecResult>;
  /**
   * Starts a long-running process (a background job, a Monitor, a stdio MCP server) in the same
   * sandbox, with the same limits and the job's network namespace and /tmp; it runs until it ends,
   * is stopped, or the job's workspace is disposed. Absent where processes cannot outlive a call.
   */
  start?(argv: readonly string[], options: StartOptions): Promise<StartedProcess>;
  /**
   * Runs `task` (a host file tool's check and open) with every process of the job that could race it
   * paused: what the path guard checked is what the host then opens. A command started meanwhile
   * waits for the pause to end (with nothing running, that is all a pause does), so `task` must not
   * run commands in the sandbox itself.
   */
  pausing?<T>(task: () => Promise<T>): Promise<T>;
}

export interface StartOptions {
  /** Extra environment for this process only (never secrets). */
  env?: Record<string, string>;
  /** Keep stdin open as a pipe the caller writes (an MCP server's requests). @defaultValue no stdin */
  stdin?: boolean;
  /** Deliver stderr apart; otherwise it is merged into stdout. @defaultValue false */
  separateStderr?: boolean;
  onStdout(chunk: Buffer): void;
  onStderr?(chunk: Buffer): void;
}

export interface StartedProcess {
  /** The process's stdin, when `stdin` was asked for. */
  readonly stdin: NodeJS.WritableStream | undefined;
  /** Settles once it has ended and its output is drained; `exitCode` is null when a signal ended it. */
  readonly exited: Promise<{ exitCode: number | null; killed: boolean }>;
  /** Kills it, with everything it started; resolves once it is gone. */
  stop(): Promise<void>;
}

/** Runs ripgrep, read-only, over the worktree (Grep and Glob). */
export interface SearchPort {
  /**
   * Whether ripgrep runs on the host, where it opens the worktree's files as a file tool does (with
   * the job's processes paused), or as one of the job's processes, in its sandbox (no pause: it would
   * wait for itself).
   */
  readonly onHost: boolean;
  /** Runs `rg` with these arguments, cwd = worktree root. Exit code 1 (no match) is not an error. */
  ripgrep(
    args: readonly string[],
    options: { signal?: AbortSignal; maxOutputBytes?: number },
  ): Promise<{
    stdout: string;
    exitCode: number;
    truncated: boolean;
  }>;
}

export interface GitStatusEntry {
  path: string;
  /** Two-letter porcelain code, e.g. " M", "??", "A ". */
  code: string;
}

/** Git inside the worktree, as the agent may use it. It never holds a credential and never pushes. */
export interface GitPort {
  currentBranch(): Promise<string>;
  status(): Promise<GitStatusEntry[]>;
  diff(options: { staged?: boolean; base?: string }): Promise<string>;
  log(count: number): Promise<Array<{ sha: string; subject: string; author: string; date: string }>>;
  /** Stages `files` (default all changes) and commits; returns the new sha, or null when nothing to commit. */
  commit(message: string, files?: readonly string[]): Promise<string | null>;
  listBranches(): Promise<string[]>;
  createBranch(name: string): Promise<void>;
  switchBranch(name: string): Promise<void>;
  /** Files and added+deleted line count of HEAD plus the working tree against `base`. */
  diffStat(base: string): Promise<{ files: string[]; lines: number }>;
}

/** One path of a change to be published, as the host read it from objects it owns. */
export interface ChangedPath {
  path: string;
  /** A (added), D (deleted), M (modified), T (type changed). */
  status: string;
  /** Git modes: 100644, 100755, 120000 (symlink), 160000 (gitlink), 000000 (absent). */
  oldMode: string;
  newMode: string;
  /**
   * Added plus deleted lines, where `\n`, `\r\n`, a lone `\r`, U+2028 and U+2029 each end a line
   * (src/util/count-lines.ts); a file git calls binary counts the lines of its content.
   */
  lines: number;
  /** The larger of the two sides' sizes, in bytes. */
  bytes: number;
  /** Bytes of the lines only the new side has: what the change writes. */
  addedBytes: number;
}

/** The change a publish would make: base..sha in the host's own repository. */
export interface PublishedChange {
  /** The sha the change is measured from (the base, or the pull request's head at job start). */
  from: string;
  /** The exact commit to be published. */
  sha: string;
  /** The net change from..sha. */
  files: ChangedPath[];
  /** Each new non-merge commit's own change against its parent (empty for a single commit). */
  commitFiles: ChangedPath[];
  commits: number;
  /** Sum of `files`' lines. */
  lines: number;
  /**
   * What the pushed history adds: every version of each path a new commit holds (the bytes of its lines
   * the start did not have), each new commit object whole (message, author, committer) and the names of
   * added paths.
   */
  addedBytes: number;
  /**
   * The symlinks of the trees this publish holds, so that a link's target is followed through the
   * links it passes (`self -> .` makes `x -> self/.github` lead to `.github`). Null when no new commit
   * adds, changes or removes a symlink: every link then leads where it led at the start.
   */
  symlinks: PublishedSymlinks | null;
}

/**
 * A tree's symlinks by path (a path git stores: every directory above it is a real one), each with its
 * target, or null where the host did not read it (longer than MAX_SYMLINK_TARGET_BYTES, more than a
 * symlink can hold). A path that is not a key is no symlink in that tree.
 */
export interface TreeSymlinks {
  get(path: string): string | null | undefined;
  has(path: string): boolean;
  entries(): Iterable<readonly [string, string | null]>;
}

export interface PublishedSymlinks {
  /** The start's tree (`from`): a link that leads where it led there is not the change's doing. */
  from: TreeSymlinks;
  /** The base branch's tree, when it is not the start: counts as known for the new commits' trees, as for their paths. */
  base?: TreeSymlinks;
  /** The tip's tree: what the net change leaves. */
  tip: TreeSymlinks;
  /** The trees of new commits whose symlinks differ from the tip's (each different set once). */
  commits: readonly TreeSymlinks[];
}

/**
 * The host's verdict on a change before it leaves the job: publish it, refuse it, or publish it only
 * once a maintainer approves (the real diff is above require_approval_above).
 */
export type PublishVerdict = { action: "publish" } | { action: "refuse"; reason: string } | { action: "ask"; reason: string };

/**
 * Asks a maintainer whether this exact commit may be published (the job's approval gate, one question
 * at a time); resolves with the answer. The wait ends with the job's signal or the approval timeout.
 */
export type PublishApproval = (question: { sha: string; reason: string }, signal?: AbortSignal) => Promise<boolean>;

export interface IssueComment {
  author: string;
  /** "User", "Bot", or "Organization", as GitHub says. */
  authorType: string;
  /** Whether the author had write access when the thread was frozen. */
  trusted: boolean;
  body: string;
  createdAt: string;
}

export interface IssueSnapshot {
  number: number;
  title: string;
  body: string;
  state: string;
  labels: string[];
  isPullRequest: boolean;
  comments: IssueComment[];
  /** Older comments left out of `comments`. */
  omittedComments: number;
  /** `trusted: false` marks an author without write access; absent means not checked. */
  reviewComments?: Array<{ author: string; path: string; line: number | null; body: string; trusted?: boolean }>;
}

/** The one issue (or PR) this job works on; there is no way to name another. */
export interface IssuePort {
  get(signal?: AbortSignal): Promise<IssueSnapshot>;
  /**
   * Posts one comment; returns its URL, or "printed" in local runs. The port masks secrets on the way
   * out (over the job's redacting GitHub client, or in the local run's printer), not the caller.
   */
  report(report: IssueReport, signal?: AbortSignal): Promise<{ url: string }>;
}

/** What ReportToIssue posts: the agent's words, and what the host adds below them. */
export interface IssueReport {
  /** The agent's Markdown, as it wrote it: the port masks it and makes it its prose (`agentProse`). */
  prose: string;
  /** The host's lines after it (the artifacts' links). @defaultValue none */
  footer?: SurfaceMarkdown;
}

export interface PullRequestRequest {
  title: string;
  body: string;
  draft: boolean;
  base?: string;
}

export interface PullRequestResult {
  number: number | null;
  url: string | null;
  created: boolean;
  /** What to tell the model, e.g. "no remote in a local run; the branch tackle/local-x holds the work". */
  message: string;
}

/**
 * Publishing: the host checks the branch's diff against policy, pushes with a short-lived
 * credential, and creates or updates the pull request.
 */
export interface PullsPort {
  /** `approve` is asked when the host's check wants a maintainer's word; without it such a push is refused. */
  createOrUpdate(request: PullRequestRequest, signal?: AbortSignal, approve?: PublishApproval): Promise<PullRequestResult>;
}

export interface Todo {
  content: string;
  status: "pending" | "in_progress" | "completed";
}

/** Durable session state, rendered into every model call and kept across compaction. */
export interface SessionState {
  todos: Todo[];
  notes: string[];
  /** Set by task_done. */
  done?: { summary: string; filesChanged: string[] };
  /** Set by create_pull_request. */
  pullRequest?: PullRequestResult;
}

/** A page WebFetch read, as the host fetched it. */
export interface WebPage {
  /** Where the content came from, after redirects. */
  url: string;
  status: number;
  contentType: string;
  /** The body as text: HTML converted to markdown, other text as it is; cut to the fetcher's cap. */
  text: string;
  /** Characters cut from the end (0: the whole page). */
  truncatedChars: number;
  /** Served from the fetcher's 15-minute cache. */
  cached: boolean;
}

/**
 * Fetches http(s) pages for the agent on the host, never from the sandbox, within the operator's and
 * the repository's allow-list. Rejects with TackleError("fetch_refused") for a scheme or destination
 * the rules refuse (the message says which rule), TackleError("fetch_failed") for network errors,
 * timeouts and bodies that are not text, and TackleError("fetch_limit") for a body past the HTTP
 * client's byte budget (a page past the text cap is truncated instead).
 */
export interface WebPort {
  fetch(url: string, signal: AbortSignal): Promise<WebPage>;
}

/** One memory's entry in the index: what the prompt shows at job start. */
export interface MemorySummary {
  name: string;
  description: string;
  /** Provenance: the job that wrote it, and who triggered that job. */
  jobId: string;
  actor: string;
  /** ISO time of the last write. */
  updatedAt: string;
}

export interface Memory extends MemorySummary {
  content: string;
}

/**
 * The repository's durable memory, bound to one repository and to this job's provenance. Writes are
 * redacted before they are stored. Rejects with TackleError("invalid_input") for a bad name or an
 * oversized content, and TackleError("memory_full") past the repository's limit.
 */
export interface MemoryPort {
  index(): Promise<MemorySummary[]>;
  read(name: string): Promise<Memory | null>;
  /** Stores one memory (empty content deletes it). */
  write(entry: { name: string; description: string; content: string }): Promise<"created" | "updated" | "deleted" | "absent">;
}

/** A tool an MCP server offers, as discovered. */
export interface McpToolInfo {
  /** The server's name in the repo config. */
  server: string;
  /** The tool's name on its server. */
  name: string;
  description: string;
  /** Its JSON Schema (an object schema). */
  inputSchema: { type: "object"; [key: string]: unknown };
  /** The repo config marks its server `trusted`: its calls need no approval. */
  trusted: boolean;
}

/** A server of the repository's that cannot be used: it was not reached, or its process ended mid-job. */
export interface McpServerFailure {
  server: string;
  /** Why, in the host's words (no text of the server's). */
  error: string;
  /** The end of what a stdio server's process wrote on stderr: the server's own text, to be fenced as such. */
  stderr?: string;
}

/** The result of one call; `unavailable` when the server's process ended during it, or earlier in the job. */
export interface McpCallResult {
  content: string;
  isError: boolean;
  unavailable?: McpServerFailure;
}

/**
 * The repository's MCP servers: HTTP ones reached by the host, stdio ones run in the job's sandbox.
 * Servers are connected on first use, once; one whose process ends is not started again.
 */
export interface McpPort {
  /** Every server's tools; a server that cannot be reached (or has ended since) is listed in `failures`. */
  discover(signal: AbortSignal): Promise<{ tools: McpToolInfo[]; failures: McpServerFailure[] }>;
  /** Calls one tool; the result's text blocks joined, and whether the server said it failed. Rejects with TackleError("mcp_failed"). */
  call(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult>;
  /** The servers that have failed so far, at discovery or since, one entry each (for the tracking comment). @defaultValue none reported */
  failures?(): McpServerFailure[];
  close(): Promise<void>;
}

/** One worktree of a local run's private repository, as the Worktree tool lists it. */
export interface WorktreeInfo {
  /** `main` for the run's own checkout. */
  name: string;
  /** The branch the host created it on (the main checkout's: the run's own branch). */
  branch: string;
  /** Its root (realpath): where the tools work while it is current. */
  root: string;
  /** Whether the session's tools work there now. */
  current: boolean;
  /** What is checked out there now, read from the worktree itself; null when git could not say. */
  head: { sha: string; subject: string; branch: string } | null;
}

/**
 * A local run's worktrees: more checkouts of the job's private repository beside the main one, each on
 * a branch of its own and in a sandbox of its own. The session works in one of them at a time: entering
 * one moves every file, search, shell and git tool there. Only the main checkout's branch is handed back
 * to the user's repository. Rejects with TackleError("invalid_input") for a bad, unknown or taken name,
 * and for removing the main or the current worktree.
 */
export interface WorktreePort {
  /** A new worktree on a new branch from the current worktree's HEAD; it is not entered. */
  create(name: string, signal?: AbortSignal): Promise<WorktreeInfo>;
  enter(name: string): Promise<WorktreeInfo>;
  /** Back to the main checkout. */
  leave(): Promise<WorktreeInfo>;
  /** The main checkout first, then the others in the order they were made. */
  list(signal?: AbortSignal): Promise<WorktreeInfo[]>;
  /** Ends the worktree's processes, removes it and deletes its branch. */
  remove(name: string, signal?: AbortSignal): Promise<{ name: string; branch: string }>;
}

/** One file the job published for people to receive (UploadArtifact). */
export interface ArtifactInfo {
  /** What ReportToIssue's `artifact_ids` name (`a1`, `a2`, …). */
  id: string;
  /** Masked, as stored: the agent chose it. */
  name: Masked;
  description?: Masked;
  bytes: number;
  /** Where a person downloads it (the dashboard), or null where there is none (the Action: the run's artifacts). */
  url: string | null;
}

/**
 * The job's artifacts, stored with its transcript. `upload` masks the job's secrets in a text file and
 * refuses a binary one that holds any; it rejects with TackleError("invalid_input") past the size caps.
 */
export interface ArtifactPort {
  upload(file: { name: string; content: Buffer; description?: string }, signal?: AbortSignal): Promise<ArtifactInfo>;
  /** What this job uploaded so far, in order. */
  list(): ArtifactInfo[];
}
