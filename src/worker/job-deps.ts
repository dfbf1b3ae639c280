// What a job runs on (the ports and settings the server, the fleet's workers and the Action hand processJob) and what it hands back.
import type { ModelClient } from "../agent/model-client.js";
import type { ArtifactInfo } from "../agent/ports.js";
import type { GitHubClient } from "../github/index.js";
import type { Approvals } from "../jobs/approvals.js";
import type { DailyBudget } from "../jobs/daily-budget.js";
import type { MemoryStore } from "../jobs/memory-store.js";
import type { JobStore } from "../jobs/job-store.js";
import type { WebFetchCache } from "../net/create-web-fetch-cache.js";
import type { OperatorSecrets } from "../config/index.js";
import type { AckClaims } from "../jobs/ack-claims.js";
import type { JobData } from "../jobs/job-data.js";
import type { Logger } from "../logging/logger.js";
import type { Masked } from "../util/redact.js";
import type { PrepareOptions, Workspace } from "../workspace/index.js";
import type { JobMetrics } from "./job-metrics.js";
import type { JobStats, TrackingState } from "./tracking-comment.js";
export interface WorkerSettings {
  /** TACKLE_HOME: repo cache, checkouts, transcripts. */
  home: string;
  defaultModel: string;
  allowedModels: string[];
  sandbox: "bwrap" | "off";
  gitUrl: (owner: string, repo: string) => string;
  /** Host part of the repo cache key (github.com or the GHE host). */
  gitHost: string;
  /** Secrets the job must never leak (model key, webhook secret), redacted by value. */
  secrets: string[];
  /** How long a policy question waits for an answer; tests shorten it. @defaultValue the repo's approval_timeout_minutes */
  approvalTimeoutMs?: number;
  /** The `/name stop` hint in the tracking comment; null where commands do not exist (the Action). @defaultValue "tackle" */
  commandName?: string | null;
  /** The operator's TACKLE_SECRET_* variables and their scopes, which a repository's MCP `env` and `headers` may name. @defaultValue none */
  operatorSecrets?: OperatorSecrets;
  /** TACKLE_DAILY_BUDGET_USD: each installation's cap per UTC day (with `budget`). @defaultValue null: no cap */
  dailyBudgetUsd?: number | null;
  /** The dashboard's base URL (`TACKLE_PUBLIC_URL` + `/dashboard`): the tracking comment links the job's page. @defaultValue none */
  dashboardUrl?: string | null;
}

/** The ports processJob runs on; never a Probot context, so the server, worker and Action share it. */
export interface ProcessJobDeps {
  github: (data: JobData) => Promise<GitHubClient>;
  model: (modelName: string) => ModelClient;
  workspaces: { prepare(options: PrepareOptions): Promise<Workspace> };
  clock: () => number;
  logger: Logger;
  settings: WorkerSettings;
  /**
   * Where policy questions wait for `/tackle approve` / `/tackle deny`; the server's webhook handler
   * answers through the same store (or the same Redis). @defaultValue none: every question is denied
   */
  approvals?: Approvals;
  /**
   * Decides between the webhook side and the job who posts the tracking comment (see AckClaims).
   * @defaultValue none: the job looks for an earlier comment by its marker, else posts one (Action)
   */
  claims?: AckClaims;
  /**
   * The repositories' durable memory (Redis, or files under TACKLE_HOME) and the host part of its keys
   * (`github.com`, or the GHE host). @defaultValue memory is off
   */
  memory?: { store: MemoryStore; host: string };
  /** TACKLE_FETCH_ALLOW as loadEnv reads it (null: unset) and the process's page cache. @defaultValue WebFetch is off */
  web?: { allow: readonly string[] | null; cache: WebFetchCache };
  /**
   * Where the daily caps are counted (`settings.dailyBudgetUsd`, a repository's `daily_budget_usd`):
   * Redis shared by every worker, or this process's memory. @defaultValue none: no daily cap applies
   */
  budget?: DailyBudget;
  /** Where the job reports what `/metrics` counts (model calls, tokens, tool calls, sandbox failures). @defaultValue none */
  metrics?: JobMetrics;
  /**
   * Where the job's record, transcript and artifacts go for the dashboard (Redis, or files under
   * TACKLE_HOME; the Action's artifacts directory). @defaultValue none: nothing recorded, no UploadArtifact
   */
  jobStore?: JobStore;
}

export type JobOutcomeStatus = TrackingState["phase"];

export interface JobOutcome {
  status: Exclude<JobOutcomeStatus, "queued" | "working">;
  /** Masked: it leaves through the job store, the log, the queue's record and the Action's summary. */
  reason: Masked;
  pullRequestUrl: string | null;
  /** Turns, tokens, cost and duration, as the final tracking comment shows them (the Action's step summary). */
  stats: JobStats;
  /** What the job uploaded with UploadArtifact (the Action's step summary lists them). */
  artifacts?: ArtifactInfo[];
}
