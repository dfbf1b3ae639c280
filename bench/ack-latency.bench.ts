/**
 * Acknowledgement latency: webhook sent -> 👀 reaction, and -> the queued tracking comment, as the
 * fake GitHub saw them arrive, over 50 `issues.assigned` deliveries on distinct issues. Production
 * Octokit settings: Probot's throttling spaces writes ≥ 1 s apart per installation (and comments,
 * which notify, ≥ 3 s), so the scenario decides what is possible:
 *   spread — 50 installations, 10 deliveries a second: no two writes share a limiter;
 *   one installation — 50 issues of one repo, one delivery every 1.2 s, like a busy repo.
 * In-process: no REDIS_URL, the embedded queue runs each job (a model that calls task_done at once).
 * BullMQ: REDIS_URL to a private redis-server, the server only enqueues (`withWorker: false`).
 */
import { deliverPaced, seconds, startEngine, startOwnRedis, type AckSample, type OwnRedis } from "./engine-helpers.js";
import { percentile, printTable } from "./table.js";

const DELIVERIES = 50;
const GOAL_EYES_P50_MS = 200;

interface Scenario {
  name: string;
  owners: string[];
  issuesPerOwner: number;
  intervalMs: number;
}

const SCENARIOS: Scenario[] = [
  {
    name: "50 installations, 10/s",
    owners: Array.from({ length: DELIVERIES }, (_, i) => `owner${String(i + 1).padStart(2, "0")}`),
    issuesPerOwner: 1,
    intervalMs: 100,
  },
  { name: "1 installation, 1 per 1.2 s", owners: ["busy"], issuesPerOwner: DELIVERIES, intervalMs: 1_200 },
];

type Mode = "in-process" | "BullMQ";

interface Result {
  mode: Mode;
  scenario: Scenario;
  samples: AckSample[];
}

/** One mode and scenario on a fresh App; installation ids apart from every other run's (limiters are process-wide). */
async function measure(mode: Mode, scenario: Scenario, firstInstallationId: number, redis: OwnRedis | undefined): Promise<Result> {
  const engine = await startEngine({
    owners: scenario.owners,
    issuesPerOwner: scenario.issuesPerOwner,
    firstInstallationId,
    ...(redis ? { redisUrl: redis.url } : {}),
    withWorker: false,
  });
  try {
    // The last comment of the paced scenario can trail by minutes (comments are spaced 3 s apart).
    const samples = await deliverPaced(engine, scenario.intervalMs, 240_000);
    // In-process jobs share the process and the limiters; let them finish before the next run.
    if (mode === "in-process") await Promise.race([engine.app.queue.idle(), new Promise((resolve) => setTimeout(resolve, 60_000))]);
    return { mode, scenario, samples };
  } finally {
    await engine.close();
  }
}

function row(result: Result): string[] {
  const { samples } = result;
  const eyes = samples.map((s) => s.eyesAt - s.sentAt);
  const comment = samples.map((s) => s.commentAt - s.sentAt);
  const gap = samples.map((s) => s.commentAt - s.eyesAt);
  const answered = samples.map((s) => s.answeredAt - s.sentAt);
  const missing = samples.filter((s) => Number.isNaN(s.eyesAt) || Number.isNaN(s.commentAt)).length;
  const failed = samples.filter((s) => s.status !== 200).length;
  const eyesP50 = percentile(eyes, 50);
  return [
    result.mode,
    result.scenario.name,
    seconds(eyesP50),
    seconds(percentile(eyes, 95)),
    seconds(percentile(comment, 50)),
    seconds(percentile(comment, 95)),
    seconds(percentile(gap, 50)),
    seconds(percentile(answered, 95)),
    `${failed} / ${missing}`,
    eyesP50 < GOAL_EYES_P50_MS ? "met" : "not met",
  ];
}

export async function run(): Promise<void> {
  const redis = await startOwnRedis();
  const results: Result[] = [];
  try {
    let installationBase = 10_000;
    for (const scenario of SCENARIOS) {
      // The two modes of a scenario run side by side (their own fakes, Apps and installation ids):
      // the paced scenario is bound by GitHub's write spacing, not by this machine.
      const pair = await Promise.all(
        (["in-process", "BullMQ"] as const).map((mode, i) => measure(mode, scenario, installationBase + i * 1_000, mode === "BullMQ" ? redis : undefined)),
      );
      results.push(...pair);
      installationBase += 10_000;
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
      "non-200 / unacked",
      `goal 👀 p50 < ${GOAL_EYES_P50_MS / 1000} s`,
    ],
    results.map(row),
  );
  console.log(
    "\nTimes from just before each delivery was sent to when the fake GitHub received the write. " +
      "Throttling: writes ≥ 1 s apart and comments ≥ 3 s apart, per installation (@octokit/plugin-throttling via Probot).",
  );
}
