/**
 * Acknowledgement latency: webhook sent -> 👀 reaction, and -> the queued tracking comment, as the
 * fake GitHub saw them arrive, over 50 `issues.assigned` deliveries on distinct issues, with
 * production Octokit settings. Probot's throttling spaces writes ≥ 1 s apart per installation, and
 * writes that notify (new comments) ≥ 3 s apart, so the scenario decides what is possible:
 *   spread — 50 installations, 10 deliveries a second: no two writes share a limiter;
 *   one installation — 50 issues of one repo, one delivery every 1.2 s, like a busy repo.
 * In-process: no REDIS_URL, the embedded queue runs each job in the App (a model that calls task_done
 * at once). BullMQ: REDIS_URL to a private redis-server; the server only enqueues (`withWorker: false`).
 * Each run has a fresh App, fakes and installations, and one warm-up delivery outside the figures.
 */
import os from "node:os";
import { seconds, startEngine, startOwnRedis, type AckSample, type LoopDelay, type OwnRedis } from "./engine-helpers.js";
import { ms, percentile, printTable } from "./table.js";

const DELIVERIES = 50;
const GOAL_EYES_P50_MS = 200;

interface Scenario {
  name: string;
  owners: string[];
  issuesPerOwner: number;
  intervalMs: number;
  /** How long after the last delivery the acknowledgements may take before the run is cut. */
  waitMs: number;
  /** Run both modes at once (the figures are seconds of throttling, not milliseconds of CPU). */
  modesSideBySide: boolean;
}

const SPREAD: Scenario = {
  name: "50 installations, 10/s",
  owners: Array.from({ length: DELIVERIES }, (_, i) => `owner${String(i + 1).padStart(2, "0")}`),
  issuesPerOwner: 1,
  intervalMs: 100,
  waitMs: 30_000,
  modesSideBySide: false,
};
const ONE_INSTALLATION: Scenario = {
  name: "1 installation, 1 per 1.2 s",
  owners: ["busy"],
  issuesPerOwner: DELIVERIES,
  intervalMs: 1_200,
  waitMs: 45_000,
  modesSideBySide: true,
};

type Mode = "in-process" | "BullMQ";

interface Result {
  mode: Mode;
  scenario: Scenario;
  samples: AckSample[];
  loop: LoopDelay;
}

async function measure(mode: Mode, scenario: Scenario, redis: OwnRedis): Promise<Result> {
  const engine = await startEngine({
    owners: scenario.owners,
    issuesPerOwner: scenario.issuesPerOwner,
    ...(mode === "BullMQ" ? { redisUrl: redis.url } : {}),
    withWorker: false,
  });
  try {
    const { samples, loop } = await engine.deliver(scenario.intervalMs, scenario.waitMs);
    return { mode, scenario, samples, loop };
  } finally {
    await engine.close();
  }
}

/** Milliseconds from sending to `at`; what never came counts as infinitely late. */
const since = (samples: AckSample[], at: (s: AckSample) => number): number[] =>
  samples.map((s) => (Number.isFinite(at(s)) ? at(s) - s.sentAt : Number.POSITIVE_INFINITY));

function row(result: Result): string[] {
  const { samples } = result;
  const eyes = since(samples, (s) => s.eyesAt);
  const comment = since(samples, (s) => s.commentAt);
  const gap = samples.map((s) => s.commentAt - s.eyesAt).filter(Number.isFinite);
  const answered = since(samples, (s) => s.answeredAt);
  const acked = samples.filter((s) => Number.isFinite(s.eyesAt) && Number.isFinite(s.commentAt)).length;
  const late = samples.filter((s) => s.status !== 200).length;
  const eyesP50 = percentile(eyes, 50);
  return [
    result.mode,
    result.scenario.name,
    seconds(eyesP50),
    seconds(percentile(eyes, 95)),
    seconds(percentile(comment, 50)),
    seconds(percentile(comment, 95)),
    seconds(percentile(gap, 50)),
    `${seconds(percentile(answered, 95))}${late > 0 ? ` (${late} not 200)` : ""}`,
    `${acked}/${samples.length}`,
    ms(result.loop.p99),
    eyesP50 < GOAL_EYES_P50_MS ? "met" : "not met",
  ];
}

/** Where the time to 👀 goes, one installation per delivery: each step's arrival at the fake. */
function breakdownRow(result: Result): string[] {
  const { samples } = result;
  const p50 = (at: (s: AckSample) => number) => seconds(percentile(since(samples, at), 50));
  return [
    result.mode,
    p50((s) => s.tokenAt),
    p50((s) => s.configAt),
    p50((s) => s.permissionAt),
    p50((s) => s.eyesAt),
    p50((s) => s.commentAt),
    p50((s) => s.answeredAt),
  ];
}

export async function run(): Promise<void> {
  const redis = await startOwnRedis();
  const results: Result[] = [];
  try {
    for (const scenario of [SPREAD, ONE_INSTALLATION]) {
      if (scenario.modesSideBySide) {
        results.push(...(await Promise.all([measure("in-process", scenario, redis), measure("BullMQ", scenario, redis)])));
      } else {
        results.push(await measure("in-process", scenario, redis));
        results.push(await measure("BullMQ", scenario, redis));
      }
    }
  } finally {
    await redis.stop();
  }
  printTable(
    [
      "mode",
      "scenario",
      "👀 p50",
      "👀 p95",
      "comment p50",
      "comment p95",
      "comment − 👀 p50",
      "webhook answered p95",
      "acked",
      "Tackle loop delay p99",
      `goal 👀 p50 < ${GOAL_EYES_P50_MS / 1000} s`,
    ],
    results.map(row),
  );
  console.log(
    `\nFrom just before each delivery was sent to the write's arrival at the fake GitHub; "—" = not within ` +
      `${ONE_INSTALLATION.waitMs / 1000} s of the last delivery (the run is then cut); "acked" counts deliveries with both. ` +
      "Per installation, the throttling lets one write through per second and one new comment per 3 s, in arrival order: " +
      "each delivery's 👀, comment and position edit, and in-process the jobs' own edits. " +
      "Webhooks still running after 9 s are answered 202 by @octokit/webhooks. Load average at the end: " +
      os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" / ") +
      ` on ${os.cpus().length} CPUs.\n`,
  );
  printTable(
    ["mode (50 installations, 10/s)", "token p50", "config read p50", "permission p50", "👀 p50", "comment p50", "webhook answered p50"],
    results.filter((r) => r.scenario === SPREAD).map(breakdownRow),
  );
  console.log("\nEach step as the fake GitHub received it, from the delivery's sending; the steps run one after another.");
}
