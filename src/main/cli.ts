// Each command's module is imported when that command runs, so `--help` and `--version` load
// nothing but this file (the build splits the bundle at these imports).
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";

// scripts/build.mjs replaces TACKLE_VERSION with package.json's version, so the built bin reads no file
// to answer --version. Run from source (`tsx src/main/cli.ts`), it is read from the package.json beside src/.
declare const TACKLE_VERSION: string | undefined;
const VERSION = typeof TACKLE_VERSION === "string" ? TACKLE_VERSION : sourceVersion();

function sourceVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
  if (typeof manifest.version !== "string") throw new Error("package.json has no version");
  return manifest.version;
}

const USAGE = `tackle ${VERSION} — an AI issue-worker for GitHub

Usage:
  tackle server [--with-worker]     run the GitHub App (webhooks on $PORT at $WEBHOOK_PATH)
  tackle worker [--concurrency N] [--port N]
                                    consume the BullMQ queue on $REDIS_URL and run jobs
  tackle run --local PATH (--task TEXT | --task-file FILE) [--replay FILE] [--model NAME]
                                    work on a local repository, leaving a branch and a patch file
  tackle receive --event NAME --payload FILE [--delivery-id ID]
                                    run one webhook delivery through the App in this process
  tackle setup [--port N] [--org ORG] [--name NAME] [--manifest FILE]
                                    register the GitHub App (manifest flow) and write .env
  tackle doctor                     check git, bubblewrap, ripgrep, Redis and keys
  tackle memory list|show|delete --repo OWNER/NAME [--host HOST] [NAME]
                                    read or prune a repository's durable memory
  tackle --version

Run \`tackle <command> --help\` for a command's options and environment.`;

const HELP: Record<string, string> = {
  server: `tackle server [--with-worker]

Runs the GitHub App: receives webhooks at $WEBHOOK_PATH (default /api/github/webhooks) on $PORT
(default 3000), answers GET /healthz (live) and GET /readyz (ready; checks Redis when REDIS_URL is set).
Without REDIS_URL, jobs run in this process. With REDIS_URL, the server only enqueues unless
--with-worker is given. Reads .env in the working directory; variables already set win.

Environment:
  APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET   the GitHub App (required)
  GHE_HOST, GHE_PROTOCOL     GitHub Enterprise Server (REST at {proto}://{host}/api/v3)
  PORT                       listen port (default 3000)
  HOST                       listen address (default: every interface)
  WEBHOOK_PATH               webhook path (default /api/github/webhooks)
  WEBHOOK_PROXY_URL          a smee.io channel to subscribe to and forward to WEBHOOK_PATH (development)
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
  worker: `tackle worker [--concurrency N] [--drain-seconds S] [--lock-seconds S] [--port N]

Consumes jobs from the BullMQ queue on $REDIS_URL and runs them (many workers, many machines).
One job runs at a time per issue or PR across all workers. On SIGTERM, stops taking jobs, waits up to
--drain-seconds (default 30) for running ones, then aborts them; they are requeued for another worker.

Options:
  --concurrency N      jobs this process runs at once (default 2)
  --drain-seconds S    how long SIGTERM waits for running jobs (default 30)
  --lock-seconds S     how long a job's lock lasts without renewal: a worker that dies (SIGKILL, lost
                       machine) has its job taken over by another worker after about this long (default 30)
  --port N             serve /healthz and /readyz on this port (on HOST when set); without it no port is opened

Environment: REDIS_URL (required), APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, ANTHROPIC_API_KEY,
ANTHROPIC_BASE_URL, TACKLE_MODEL, TACKLE_ALLOWED_MODELS, TACKLE_HOME, TACKLE_SANDBOX, GHE_HOST, GHE_PROTOCOL.
Reads .env in the working directory; variables already set win.`,
  receive: `tackle receive --event NAME --payload FILE [--delivery-id ID]

Runs one webhook delivery through the whole App in this process, as \`probot receive\` does: no
signature check, the in-process queue (REDIS_URL is ignored), and waits for the job to end.
Exit code 0 when the job ended done or with no changes; 1 when it ended otherwise; 2 for an unknown
event name or an unusable payload file; 3 when the delivery started no job (not a trigger, refused,
or a command that runs none).

Options:
  --event NAME         X-GitHub-Event, such as issues or issue_comment (or issues.assigned, checked
                       against the payload's action)
  --payload FILE       the delivery's JSON body; it must name the App's installation (installation.id)
  --delivery-id ID     X-GitHub-Delivery (default: a random UUID)

Environment: as for tackle server, without WEBHOOK_SECRET. The environment only: no .env is read.`,
  setup: `tackle setup [--port N] [--org ORG] [--name NAME] [--manifest FILE]

Registers the GitHub App through GitHub's manifest flow: serves a page on 127.0.0.1 that posts the
manifest (Tackle's app.yml) to GitHub, receives the one-time code on its redirect, trades it for the
App's id, private key and webhook secret, and writes them to .env in the working directory with mode
0600. An existing .env is never overwritten.

Options:
  --port N          the local page's port (default: a free one)
  --org ORG         register the App for an organization instead of your account
  --name NAME       the App's name (default: app.yml's; names are unique on a GitHub server)
  --manifest FILE   another manifest than Tackle's app.yml

Environment:
  TACKLE_PUBLIC_URL     the server's public URL: webhooks go to $TACKLE_PUBLIC_URL$WEBHOOK_PATH
  WEBHOOK_PROXY_URL     or a smee.io channel (development); written to .env as well
  GHE_HOST, GHE_PROTOCOL   GitHub Enterprise Server (written to .env as well)`,
  doctor: `tackle doctor

Checks git, bubblewrap, ripgrep, Redis (when REDIS_URL is set), the model key and the App's
credentials, and says how to fix what is missing. Exit code 1 when a required check fails.`,
  memory: `tackle memory list --repo OWNER/NAME [--host HOST]
tackle memory show NAME --repo OWNER/NAME [--host HOST]
tackle memory delete NAME --repo OWNER/NAME [--host HOST]

Reads the durable memory jobs keep per repository (MemoryRead / MemoryWrite; see docs/memory.md)
where they keep it: in Redis when REDIS_URL is set, in files under TACKLE_HOME otherwise. list prints
each memory's name, description, last update, job and actor; show prints a memory's content; delete
removes it. Control characters in what jobs wrote are printed escaped (\\u{1b}).
Exit code 1 for an unknown memory name (or a store that cannot be read); 2 for bad arguments.

Options:
  --repo OWNER/NAME   the repository, such as octo/widgets
  --host HOST         its GitHub server (default $GHE_HOST, else github.com)
  --name NAME         the memory, instead of NAME after show or delete

Environment: REDIS_URL, TACKLE_HOME (default ~/.tackle), GHE_HOST. No .env is read.`,
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
      const env = await envWithDotEnv("server");
      const { startServer } = await import("./server.js");
      await startServer(env, { withWorker: values["with-worker"] ?? false });
      return -1; // keeps running
    }
    case "worker": {
      const { values } = parseArgs({
        args: rest,
        options: {
          concurrency: { type: "string" },
          "drain-seconds": { type: "string" },
          "lock-seconds": { type: "string" },
          port: { type: "string" },
        },
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
      const env = await envWithDotEnv("worker");
      const { startWorker } = await import("./worker.js");
      // startWorker checks the port and says what is wrong with it.
      await startWorker(env, {
        concurrency,
        drainMs: drainSeconds * 1000,
        lockMs: lockSeconds * 1000,
        ...(values.port === undefined ? {} : { port: values.port }),
      });
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
    case "receive": {
      const { values } = parseArgs({
        args: rest,
        options: { event: { type: "string" }, payload: { type: "string" }, "delivery-id": { type: "string" } },
        strict: true,
      });
      if (!values.event || !values.payload) return usageError("receive: --event NAME and --payload FILE are required", "receive");
      const { receive } = await import("./receive.js");
      return receive(process.env, {
        event: values.event,
        payloadPath: values.payload,
        ...(values["delivery-id"] ? { deliveryId: values["delivery-id"] } : {}),
      });
    }
    case "setup": {
      const { values } = parseArgs({
        args: rest,
        options: { port: { type: "string" }, org: { type: "string" }, name: { type: "string" }, manifest: { type: "string" } },
        strict: true,
      });
      const port = Number(values.port ?? 0);
      if (!/^\d{1,5}$/.test(values.port ?? "0") || port > 65_535) return usageError("setup: --port must be a port number from 0 to 65535", "setup");
      const { setup } = await import("./setup.js");
      return setup(process.env, {
        dir: process.cwd(),
        port,
        ...(values.org ? { org: values.org } : {}),
        ...(values.name ? { name: values.name } : {}),
        ...(values.manifest ? { manifestPath: values.manifest } : {}),
      });
    }
    case "memory": {
      const { runMemoryCommand } = await import("./memory-command.js");
      return runMemoryCommand(rest, process.env, { out: (text) => console.log(text), err: (text) => console.error(text) });
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

/**
 * The environment with `.env` in the working directory under it: `tackle server` and `tackle worker`
 * only (see withDotEnv for why never the Action or `run --local`). Prints which names it took, never values.
 */
async function envWithDotEnv(command: "server" | "worker"): Promise<NodeJS.ProcessEnv> {
  const { withDotEnv } = await import("../config/dot-env.js");
  const { env, path, applied, shadowed } = withDotEnv(process.env, { dir: process.cwd() });
  if (path) {
    const kept = shadowed.length > 0 ? `; already set, so kept from the environment: ${shadowed.join(", ")}` : "";
    console.log(`tackle ${command}: read ${path}: ${applied.join(", ") || "nothing new"}${kept}`);
  }
  return env;
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
