// Each command's module is imported when that command runs, so `--help` and `--version` load
// nothing but this file (the build splits the bundle at these imports).
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";

const VERSION = "0.1.0";

const USAGE = `tackle ${VERSION} — an AI issue-worker for GitHub

Usage:
  tackle server [--with-worker]     run the GitHub App (webhooks on $PORT at /api/github/webhooks)
  tackle worker [--concurrency N]   consume the BullMQ queue on $REDIS_URL and run jobs
  tackle run --local PATH (--task TEXT | --task-file FILE) [--replay FILE] [--model NAME]
                                    work on a local repository, leaving a branch and a patch file
  tackle doctor                     check git, bubblewrap, ripgrep, Redis and keys
  tackle --version

Run \`tackle <command> --help\` for a command's options and environment.`;

const HELP: Record<string, string> = {
  server: `tackle server [--with-worker]

Runs the GitHub App: receives webhooks at /api/github/webhooks on $PORT (default 3000), answers
GET /healthz (live) and GET /readyz (ready; checks Redis when REDIS_URL is set).
Without REDIS_URL, jobs run in this process. With REDIS_URL, the server only enqueues unless
--with-worker is given.

Environment:
  APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET   the GitHub App (required)
  GHE_HOST, GHE_PROTOCOL     GitHub Enterprise Server (REST at {proto}://{host}/api/v3)
  PORT                       listen port (default 3000)
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL   the model API
  TACKLE_MODEL, TACKLE_ALLOWED_MODELS     default model; models a repo config may choose
  TACKLE_HOME                repo cache, checkouts, transcripts (default ~/.tackle)
  TACKLE_SANDBOX=off         run jobs without bubblewrap (refused otherwise when it is missing)
  TACKLE_BOT_NAME            mention and command name (default: the App's slug)
  REDIS_URL                  BullMQ queue on Redis`,
  run: `tackle run --local PATH (--task TEXT | --task-file FILE) [--replay FILE] [--model NAME]

Works on the git repository at PATH in a separate worktree on a new branch tackle/local-<slug>,
leaves its commits on that branch, writes a patch file and prints its path. Exit code 0 when the
agent finished its task.

Options:
  --local PATH        the repository to work on
  --task TEXT         what to do (as an issue would say it)
  --task-file FILE    the same, read from a file
  --replay FILE       serve the model's responses from a transcript (JSONL) instead of the API:
                      no key and no network needed (see docs/transcript-format.md)
  --model NAME        model to use (default $TACKLE_MODEL or claude-sonnet-4-6)

Environment: ANTHROPIC_API_KEY (unless --replay), ANTHROPIC_BASE_URL, TACKLE_HOME.
Bubblewrap is used when present; without it the run warns and goes on.`,
  worker: `tackle worker [--concurrency N] [--drain-seconds S] [--lock-seconds S]

Consumes jobs from the BullMQ queue on $REDIS_URL and runs them (many workers, many machines).
One job runs at a time per issue or PR across all workers. On SIGTERM, stops taking jobs, waits up to
--drain-seconds (default 30) for running ones, then aborts them; they are requeued for another worker.

Options:
  --concurrency N      jobs this process runs at once (default 2)
  --drain-seconds S    how long SIGTERM waits for running jobs (default 30)
  --lock-seconds S     how long a job's lock lasts without renewal: a worker that dies (SIGKILL, lost
                       machine) has its job taken over by another worker after about this long (default 30)

Environment: REDIS_URL (required), APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, ANTHROPIC_API_KEY,
ANTHROPIC_BASE_URL, TACKLE_MODEL, TACKLE_ALLOWED_MODELS, TACKLE_HOME, TACKLE_SANDBOX, GHE_HOST, GHE_PROTOCOL.`,
  doctor: `tackle doctor

Checks git, bubblewrap, ripgrep, Redis (when REDIS_URL is set), the model key and the App's
credentials, and says how to fix what is missing. Exit code 1 when a required check fails.`,
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    console.log(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === "--version" || command === "-v") {
    console.log(VERSION);
    return 0;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    const help = HELP[command];
    if (!help) return unknownCommand(command);
    console.log(help);
    return 0;
  }
  switch (command) {
    case "server": {
      const { values } = parseArgs({ args: rest, options: { "with-worker": { type: "boolean" } }, strict: true });
      const { startServer } = await import("./server.js");
      await startServer(process.env, { withWorker: values["with-worker"] ?? false });
      return -1; // keeps running
    }
    case "worker": {
      const { values } = parseArgs({
        args: rest,
        options: { concurrency: { type: "string" }, "drain-seconds": { type: "string" }, "lock-seconds": { type: "string" } },
        strict: true,
      });
      const concurrency = Number(values.concurrency ?? 2);
      const drainSeconds = Number(values["drain-seconds"] ?? 30);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
        return usageError("worker: --concurrency must be an integer from 1 to 64", "worker");
      }
      if (!Number.isFinite(drainSeconds) || drainSeconds < 0) return usageError("worker: --drain-seconds must be >= 0", "worker");
      const lockSeconds = Number(values["lock-seconds"] ?? 30);
      if (!Number.isFinite(lockSeconds) || lockSeconds < 1 || lockSeconds > 600) {
        return usageError("worker: --lock-seconds must be from 1 to 600", "worker");
      }
      const { startWorker } = await import("./worker.js");
      await startWorker(process.env, { concurrency, drainMs: drainSeconds * 1000, lockMs: lockSeconds * 1000 });
      return 0;
    }
    case "run": {
      const { values } = parseArgs({
        args: rest,
        options: {
          local: { type: "string" },
          task: { type: "string" },
          "task-file": { type: "string" },
          replay: { type: "string" },
          model: { type: "string" },
        },
        strict: true,
      });
      if (!values.local) return usageError("run: --local PATH is required (the repository to work on)");
      if (values.task && values["task-file"]) return usageError("run: give --task or --task-file, not both");
      const task = values.task ?? (values["task-file"] ? await readFile(values["task-file"], "utf8") : undefined);
      if (!task?.trim()) return usageError("run: --task TEXT or --task-file FILE is required");
      const { runLocalCommand } = await import("./local.js");
      return runLocalCommand(process.env, {
        repoPath: values.local,
        task,
        ...(values.replay ? { replay: values.replay } : {}),
        ...(values.model ? { model: values.model } : {}),
      });
    }
    case "doctor": {
      const { runDoctor } = await import("./doctor.js");
      const checks = await runDoctor(process.env);
      for (const check of checks) {
        console.log(`${check.ok ? "ok  " : "FAIL"} ${check.name}: ${check.detail}`);
        if (!check.ok && check.fix) console.log(`     fix: ${check.fix}`);
      }
      const required = new Set(["git", "bubblewrap", "ripgrep", "redis"]);
      return checks.some((c) => !c.ok && required.has(c.name)) ? 1 : 0;
    }
    default:
      return unknownCommand(command);
  }
}

function usageError(message: string, command = "run"): number {
  console.error(`tackle ${message}\nRun \`tackle ${command} --help\` for the options.`);
  return 2;
}

function unknownCommand(command: string): number {
  console.error(`tackle: unknown command "${command}"\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`tackle: ${message}`);
    process.exitCode = 1;
  },
);
