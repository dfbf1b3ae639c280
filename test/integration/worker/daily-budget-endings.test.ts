// A job's daily-budget hold is given back on every way a job ends, with what it really spent counted:
// stopped mid-turn, and failed by a model outage that the queue will retry. processJob on the real
// runtime's deps (in-process ledger), the fake GitHub and the fake model.
import { afterEach, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { processJob, type ProcessJobDeps } from "../../../src/worker/index.js";
import type { ScriptedModel, ScriptedTurn } from "../../fakes/index.js";
import { OWNER, REPO, startJobWorld, type JobWorld } from "../e2e/harness.js";
import { turnIndex } from "../e2e/script-helpers.js";

let world: JobWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** $0.30 on the default model ($3 per million input tokens). */
const costly: ScriptedTurn = {
  content: [{ type: "tool_use", name: "GetIssue", input: {} }],
  usage: { input_tokens: 100_000, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
};

async function setup(script: ScriptedModel): Promise<{ deps: ProcessJobDeps; world: JobWorld }> {
  world = await startJobWorld(script, { modelRetries: 0 });
  const deps = { ...world.deps, settings: { ...world.deps.settings, dailyBudgetUsd: 1 } };
  return { deps, world };
}

async function usage(deps: ProcessJobDeps, w: JobWorld) {
  const all = await deps.budget!.usage({ installation: String(w.gh.installationId(OWNER)), repository: `${OWNER}/${REPO}`, now: Date.now() });
  return all.installation;
}

describe("daily budget: every ending gives the hold back", () => {
  it("a job stopped mid-turn: nothing stays held, and its first turn's cost is counted", async () => {
    const controller = new AbortController();
    const { deps, world: w } = await setup(async (request) => {
      if (turnIndex(request) === 0) return costly;
      // The second turn never answers: the job is stopped while it waits.
      controller.abort(new Error("stop"));
      return new Promise<ScriptedTurn>(() => undefined);
    });
    const outcome = await processJob(w.data, deps, controller.signal);
    expect(outcome.status).toBe("cancelled");
    expect(await usage(deps, w)).toEqual({ spentUsd: 0.3, heldUsd: 0 });
  });

  it("a model outage the queue retries: the hold is settled before the retry, which reserves again", async () => {
    const outage = { error: { status: 500, type: "api_error", message: "Internal server error" } } as const;
    let attempt = 0;
    const { deps, world: w } = await setup((request) => {
      if (turnIndex(request) === 0) attempt += 1;
      if (attempt === 1) return turnIndex(request) === 0 ? costly : outage;
      return { content: [{ type: "tool_use", name: "task_done", input: { summary: "Done." } }] };
    });
    const failed = await processJob(w.data, deps, new AbortController().signal, { attempt: 1, maxAttempts: 2 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isTackleError(failed) && failed.retryable).toBe(true);
    expect(await usage(deps, w)).toEqual({ spentUsd: 0.3, heldUsd: 0 });
    const retried = await processJob(w.data, deps, new AbortController().signal, { attempt: 2, maxAttempts: 2 });
    expect(retried.status).not.toBe("budget_exhausted");
    const after = await usage(deps, w);
    expect(after.heldUsd).toBe(0);
    expect(after.spentUsd).toBeGreaterThan(0.3);
  });
});
