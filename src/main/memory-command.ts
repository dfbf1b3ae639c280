import path from "node:path";
import { parseArgs } from "node:util";
import type { MemorySummary } from "../agent/ports.js";
import { parseEnv, type EnvVars } from "../config/index.js";
import { errorMessage, isTackleError } from "../errors/index.js";
import { createMemoryStore, type MemoryStore } from "../jobs/index.js";
import { silentLogger } from "../logging/logger.js";
import { maskUrl } from "../logging/mask-url.js";
import { formatRepoKey } from "../workspace/index.js";
import { formatRepoName } from "../workspace/repo-key.js";
import { escapeControls } from "../util/plain-text.js";

/** Where the command writes: stdout and stderr, or a test's buffers. */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

const SYNOPSIS = `Usage:
  tackle memory list --repo OWNER/NAME [--host HOST]
  tackle memory show NAME --repo OWNER/NAME [--host HOST]
  tackle memory delete NAME --repo OWNER/NAME [--host HOST]`;

/** Exit codes: done; an unknown memory name or a store that failed; bad arguments or environment. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const ACTIONS = new Set(["list", "show", "delete"]);

/**
 * `tackle memory list|show|delete`: an operator's view of a repository's durable memory, in Redis when
 * REDIS_URL is set, under TACKLE_HOME otherwise (as jobs keep it). Everything printed from the store
 * is escaped: an agent wrote it, and it must not drive the operator's terminal.
 */
export async function runMemoryCommand(args: string[], env: EnvVars, output: CommandOutput): Promise<number> {
  const request = parseRequest(args, env);
  if ("problem" in request) {
    output.err(`tackle memory: ${request.problem}\n${SYNOPSIS}\nRun \`tackle memory --help\` for the options.`);
    return EXIT.usage;
  }
  const store = createMemoryStore({ redisUrl: request.redisUrl, home: request.home, logger: silentLogger });
  try {
    return await perform(store, request, output);
  } catch (error) {
    output.err(`tackle memory: ${errorMessage(error)}`);
    return isTackleError(error, "invalid_input") ? EXIT.usage : EXIT.failed;
  } finally {
    await store.close();
  }
}

interface MemoryRequest {
  action: "list" | "show" | "delete";
  /** Required by show and delete. */
  name: string | undefined;
  /** The repository as `--repo` and `--host` name it; its memory is found by the id jobs saw under that name. */
  repository: { host: string; fullName: string };
  redisUrl: string | null;
  home: string;
  /** Where the memory is kept, in words, for the messages. */
  where: string;
}

function parseRequest(args: string[], env: EnvVars): MemoryRequest | { problem: string } {
  let parsed: ReturnType<typeof parseMemoryArgs>;
  try {
    parsed = parseMemoryArgs(args);
  } catch (error) {
    return { problem: errorMessage(error) };
  }
  const { values, positionals } = parsed;
  const [action, positionalName, ...extra] = positionals;
  if (action === undefined || !ACTIONS.has(action)) return { problem: action === undefined ? "say list, show or delete" : `unknown action "${action}"` };
  if (extra.length > 0) return { problem: `unexpected argument "${extra[0]}"` };
  if (positionalName !== undefined && values.name !== undefined) return { problem: "give the memory's name once (NAME or --name NAME)" };
  const name = positionalName ?? values.name;
  if (action === "list" && name !== undefined) return { problem: "list takes no memory name" };
  if (action !== "list" && name === undefined) return { problem: `${action} needs the memory's name` };
  if (values.repo === undefined) return { problem: "--repo OWNER/NAME is required" };

  const loaded = parseEnv(env, { mode: "setup" });
  if (!loaded.ok) return { problem: `invalid environment:\n${loaded.problems.map((p) => `- ${p}`).join("\n")}` };
  const [owner = "", repo = "", ...more] = values.repo.split("/");
  if (more.length > 0 || repo === "") return { problem: `--repo "${values.repo}" is not OWNER/NAME, such as octo/widgets` };
  let repository: MemoryRequest["repository"];
  try {
    repository = formatRepoName({ host: values.host ?? loaded.env.ghe?.host ?? "github.com", owner, repo });
  } catch (error) {
    return { problem: errorMessage(error) };
  }
  const { redisUrl, home } = loaded.env;
  const where = redisUrl ? `in Redis at ${maskUrl(redisUrl)}` : `in files under ${path.join(home, "memory")} (REDIS_URL is not set)`;
  return { action: action as MemoryRequest["action"], name, repository, redisUrl, home, where };
}

function parseMemoryArgs(args: string[]) {
  return parseArgs({
    args,
    options: { repo: { type: "string" }, host: { type: "string" }, name: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
}

async function perform(store: MemoryStore, request: MemoryRequest, output: CommandOutput): Promise<number> {
  const { repository, where } = request;
  // Memory is keyed by the repository's id; the name finds the id the last job under that name saw.
  const id = await store.idOf(repository.host, repository.fullName);
  if (id === null) {
    output.err(`tackle memory: no job has run on ${repository.host}/${repository.fullName} with memory on ${where}, so it has no memory here`);
    return EXIT.failed;
  }
  const repoKey = formatRepoKey({ host: repository.host, id });
  const shown = `${repository.host}/${repository.fullName} (repository id ${id})`;
  if (request.action === "list") {
    const memories = await store.list(repoKey);
    output.out(memories.length === 0 ? `No memories for ${shown} ${where}.` : `${memories.length} of ${shown}'s memories, ${where}:\n${table(memories)}`);
    return EXIT.ok;
  }
  const name = request.name ?? "";
  if (request.action === "show") {
    const memory = await store.get(repoKey, name);
    if (memory === null) return noSuchMemory(output, name, shown, where);
    output.out(escapeControls(memory.content, { keepLines: true }));
    return EXIT.ok;
  }
  if (!(await store.delete(repoKey, name))) return noSuchMemory(output, name, shown, where);
  output.out(`Deleted memory "${name}" of ${shown}.`);
  return EXIT.ok;
}

function noSuchMemory(output: CommandOutput, name: string, shown: string, where: string): number {
  output.err(`tackle memory: ${shown} has no memory "${name}" ${where}; \`tackle memory list --repo ...\` shows its names`);
  return EXIT.failed;
}

const COLUMNS = ["NAME", "DESCRIPTION", "UPDATED", "JOB", "ACTOR"] as const;

function table(memories: MemorySummary[]): string {
  const rows = memories.map((m) => [m.name, m.description, m.updatedAt, m.jobId, m.actor].map((cell) => escapeControls(cell, { keepLines: false })));
  const all = [[...COLUMNS], ...rows];
  const widths = COLUMNS.map((_, column) => Math.max(...all.map((row) => row[column]?.length ?? 0)));
  return all.map((row) => row.map((cell, column) => (column === COLUMNS.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join("  ")).join("\n");
}
