import type { MessageRequest, ModelCall, ModelClient, ModelMessage, TokenUsage } from "../agent/model-client.js";
import { modelErrorKind, type ModelErrorKind } from "../agent/model-error-kind.js";
import type { ToolCallEvent } from "../agent/tools/registry.js";

/**
 * Where a job reports what the operator's metrics count. A narrow port: the process that serves
 * `/metrics` implements it (src/web), and nothing below the worker knows what it is. Every method is
 * a plain notification; what one throws never changes the job.
 */
export interface JobMetrics {
  /** The job's first model request is being sent, `seconds` after its trigger was received. */
  firstModelRequest(seconds: number): void;
  /** A model call failed after the client's own retries (an abort is not reported). */
  modelError(kind: ModelErrorKind): void;
  /** One model response was counted: its tokens and cost, for `repository` (`owner/name`). */
  modelUsage(repository: string, usage: Readonly<TokenUsage>, costUsd: number): void;
  /** How one tool call ended (the job's agent's or a subagent's). */
  toolCall(event: ToolCallEvent): void;
  /** A sandbox could not start: for a tool call (`tool`), or for the job's workspace or setup (`job`). */
  sandboxFailure(stage: "tool" | "job"): void;
}

/** The observers the agent session hands its registries and its spend meter. */
export interface SessionObservers {
  onToolCall: (event: ToolCallEvent) => void;
  onCharge: (usage: Readonly<TokenUsage>, costUsd: number) => void;
}

/** The session's observers for one job, over the process's metrics. */
export function sessionObservers(metrics: JobMetrics, repository: string): SessionObservers {
  return {
    onToolCall: (event) => {
      guarded(() => metrics.toolCall(event));
      if (event.errorCode === "sandbox_unavailable") guarded(() => metrics.sandboxFailure("tool"));
    },
    onCharge: (usage, costUsd) => guarded(() => metrics.modelUsage(repository, usage, costUsd)),
  };
}

/**
 * The job's model clients, reporting the first request (measured from `since`, the trigger's time on
 * `clock`) and each failed call. One wrapper per job: `first` is the job's, whichever client sends it.
 */
export function observedModels(
  models: (modelName: string) => ModelClient,
  metrics: JobMetrics,
  options: { since: number; clock: () => number; reportFirst: boolean },
): (modelName: string) => ModelClient {
  let first = options.reportFirst;
  const observe = (client: ModelClient): ModelClient => ({
    name: client.name,
    async create(request: MessageRequest, signal: AbortSignal, call?: ModelCall): Promise<ModelMessage> {
      if (first) {
        first = false;
        const seconds = Math.max(0, (options.clock() - options.since) / 1000);
        guarded(() => metrics.firstModelRequest(seconds));
      }
      try {
        return await client.create(request, signal, call);
      } catch (error) {
        const kind = modelErrorKind(error);
        if (kind !== null) guarded(() => metrics.modelError(kind));
        throw error;
      }
    },
  });
  return (modelName) => observe(models(modelName));
}

function guarded(notify: () => void): void {
  try {
    notify();
  } catch {
    // Metrics are an observer: a failure there must not change the job.
  }
}
