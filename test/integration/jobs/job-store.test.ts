// The job store the dashboard reads: the same contract over files and over Redis, and Redis's caps,
// which keep transcripts from ever filling the queue's `noeviction` Redis.
import { randomUUID } from "node:crypto";
import { appendFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transcriptDir, transcriptPath } from "../../../src/agent/transcript.js";
import { createFileJobStore } from "../../../src/jobs/file-job-store.js";
import { CUT_LINE, type JobRecord, type JobRecordUpdate, type JobStore, type JobStoreLimits } from "../../../src/jobs/job-store.js";
import { createRedisJobStore } from "../../../src/jobs/redis-job-store.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { deleteKeys, testRedis } from "../queue/redis-server.js";
import { masked, maskedBytes } from "../../fakes/masked.js";
import type { Masked } from "../../../src/util/redact.js";

let redis: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => {
  await redis.stop();
});

const record = (jobId: string, enqueuedAt: string, extra: Partial<Omit<JobRecord, "reason">> = {}): JobRecordUpdate => ({
  jobId,
  repo: "octo/widgets",
  number: 7,
  isPullRequest: false,
  trigger: "issue_assigned",
  actor: "alice",
  status: "queued",
  enqueuedAt,
  ...extra,
});

interface Backend {
  /** Two stores over the same data, as the server and a worker. */
  stores: [JobStore, JobStore];
  /** Puts transcript lines where the backend keeps them (the file store reads the agent's own file). */
  writeLines(jobId: string, lines: Masked[]): Promise<void>;
  close(): Promise<void>;
}

async function fileBackend(): Promise<Backend> {
  const home = await mkdtemp(path.join(os.tmpdir(), "tackle-jobstore-"));
  const stores: [JobStore, JobStore] = [createFileJobStore({ home }), createFileJobStore({ home })];
  return {
    stores,
    async writeLines(jobId, lines) {
      await mkdir(transcriptDir(home), { recursive: true });
      await appendFile(transcriptPath(transcriptDir(home), jobId), lines.map((line) => `${line}\n`).join(""));
      await stores[1].appendTranscript(jobId, lines);
    },
    async close() {
      for (const store of stores) await store.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

function redisBackend(limits: Partial<JobStoreLimits> = {}, clock?: () => number): Backend & { prefix: string } {
  const prefix = `tackle-test-${randomUUID()}`;
  const open = () => createRedisJobStore({ redisUrl: redis.url, prefix, logger: silentLogger, limits, ...(clock ? { clock } : {}) });
  const stores: [JobStore, JobStore] = [open(), open()];
  return {
    prefix,
    stores,
    writeLines: (jobId, lines) => stores[1].appendTranscript(jobId, lines),
    async close() {
      for (const store of stores) await store.close();
      await deleteKeys(redis.url, prefix);
    },
  };
}

describe.each([
  ["files", fileBackend],
  ["redis", async () => redisBackend()],
])("job store contract (%s)", (_name, open) => {
  it("merges updates into one record, lists the newest first, and reads it from another store", async () => {
    const backend = await open();
    const [server, worker] = backend.stores;
    try {
      const earlier = new Date(Date.now() - 60_000).toISOString();
      await worker.record(record("job-old", earlier));
      await worker.record(record("job-new", new Date().toISOString()));
      await worker.record({ jobId: "job-old", status: "done", turns: 4, costUsd: 0.1234, pullRequestUrl: "https://x/pull/1" });
      expect((await server.list(10)).map((job) => job.jobId)).toEqual(["job-new", "job-old"]);
      expect(await server.get("job-old")).toEqual({
        ...record("job-old", earlier),
        status: "done",
        turns: 4,
        costUsd: 0.1234,
        pullRequestUrl: "https://x/pull/1",
        artifacts: [],
        transcriptCut: false,
      });
      expect(await server.get("job-missing")).toBeNull();
      expect(await server.list(1)).toHaveLength(1);
    } finally {
      await backend.close();
    }
  });

  it("reads the transcript from a cursor on, and tells a watcher in the other store of changes", async () => {
    const backend = await open();
    const [server, worker] = backend.stores;
    try {
      await worker.record(record("job-t", new Date().toISOString(), { status: "running" }));
      const changes: string[] = [];
      // The file store announces within its process only: there the server watches the store the job writes through.
      const watching = backend.stores[0].kind === "file" ? worker : server;
      const stop = watching.watch("job-t", () => changes.push("change"));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await backend.writeLines("job-t", [masked('{"type":"meta"}'), masked('{"type":"response","n":1}')]);
      const first = await server.readTranscript("job-t", 0);
      expect(first.lines).toEqual(['{"type":"meta"}', '{"type":"response","n":1}']);
      await backend.writeLines("job-t", [masked('{"type":"end"}')]);
      const next = await server.readTranscript("job-t", first.cursor);
      expect(next.lines).toEqual(['{"type":"end"}']);
      expect((await server.readTranscript("job-t", next.cursor)).lines).toEqual([]);
      await expect.poll(() => changes.length).toBeGreaterThanOrEqual(2);
      stop();
    } finally {
      await backend.close();
    }
  });

  it("stores artifacts numbered per job, with a safe name, and refuses one over the cap", async () => {
    const backend = await open();
    const [server, worker] = backend.stores;
    try {
      await worker.record(record("job-a", new Date().toISOString()));
      const a1 = await worker.putArtifact("job-a", {
        name: masked("../../etc/report.md"),
        description: masked("the report"),
        contentType: "text/markdown",
        content: maskedBytes(Buffer.from("# hi")),
      });
      const a2 = await worker.putArtifact("job-a", { name: masked("shot.png"), contentType: "image/png", content: maskedBytes(Buffer.from([0, 1, 2])) });
      expect([a1.id, a1.name, a2.id]).toEqual(["a1", "report.md", "a2"]);
      const job = await server.get("job-a");
      expect(job?.artifacts.map((a) => [a.id, a.name, a.bytes, a.description])).toEqual([
        ["a1", "report.md", 4, "the report"],
        ["a2", "shot.png", 3, undefined],
      ]);
      expect((await server.readArtifact("job-a", "a2"))?.content).toEqual(Buffer.from([0, 1, 2]));
      expect(await server.readArtifact("job-a", "a3")).toBeNull();
      expect(await server.readArtifact("job-a", "../x")).toBeNull();
      await expect(
        worker.putArtifact("job-a", { name: masked("big"), contentType: "text/plain", content: maskedBytes(Buffer.alloc(5 * 1024 * 1024 + 1)) }),
      ).rejects.toThrow("an artifact may have at most 5242880 (5 MB)");
    } finally {
      await backend.close();
    }
  });
});

describe("file job store caps", () => {
  const line = (n: number, size = 100) => masked(JSON.stringify({ type: "response", n, pad: "x".repeat(size) }));
  const readAll = async (store: JobStore, jobId: string, maxBytes?: number): Promise<string[]> => {
    const lines: string[] = [];
    for (let cursor = 0; ; ) {
      const chunk = await store.readTranscript(jobId, cursor, maxBytes);
      if (chunk.cursor === cursor) return lines;
      lines.push(...chunk.lines);
      cursor = chunk.cursor;
    }
  };

  it("shows the dashboard a transcript file's first maxTranscriptBytes, then one `cut` line; the file stays whole", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "tackle-jobstore-cap-"));
    const store = createFileJobStore({ home, limits: { maxTranscriptBytes: 1_000 } });
    try {
      await store.record(record("job-cap", new Date().toISOString(), { status: "running" }));
      await mkdir(transcriptDir(home), { recursive: true });
      const file = transcriptPath(transcriptDir(home), "job-cap");
      const written = Array.from({ length: 20 }, (_, i) => line(i));
      await appendFile(file, written.map((l) => `${l}\n`).join(""));
      expect((await store.get("job-cap"))?.transcriptCut).toBe(true);
      for (const maxBytes of [undefined, 150, 10_000]) {
        const lines = await readAll(store, "job-cap", maxBytes);
        expect(lines.at(-1)).toBe(CUT_LINE);
        expect(lines.slice(0, -1)).toEqual(written.slice(0, lines.length - 1));
        expect(lines.slice(0, -1).join("\n").length).toBeLessThanOrEqual(1_000);
      }
      // A line that crosses the cap is cut rather than read on past it.
      await store.record(record("job-long", new Date().toISOString(), { status: "running" }));
      await appendFile(transcriptPath(transcriptDir(home), "job-long"), `${line(0)}\n${line(1, 5_000)}\n${line(2)}\n`);
      expect(await readAll(store, "job-long", 500)).toEqual([line(0), CUT_LINE]);
      expect((await readFile(file, "utf8")).split("\n").filter(Boolean)).toEqual(written);
    } finally {
      await store.close();
      await rm(home, { recursive: true, force: true });
    }
  });

  it("reads a line longer than maxBytes whole when it ends before the cap, and waits on an unfinished one", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "tackle-jobstore-cap-"));
    const store = createFileJobStore({ home, limits: { maxTranscriptBytes: 100_000 } });
    try {
      await store.record(record("job-wide", new Date().toISOString(), { status: "running" }));
      await mkdir(transcriptDir(home), { recursive: true });
      const file = transcriptPath(transcriptDir(home), "job-wide");
      await appendFile(file, `${line(0, 3_000)}\n${line(1)}`);
      const first = await store.readTranscript("job-wide", 0, 500);
      expect(first.lines).toEqual([line(0, 3_000)]);
      expect(await store.readTranscript("job-wide", first.cursor, 500)).toEqual({ lines: [], cursor: first.cursor });
      await appendFile(file, "\n");
      expect((await store.readTranscript("job-wide", first.cursor, 500)).lines).toEqual([line(1)]);
      expect((await store.get("job-wide"))?.transcriptCut).toBe(false);
    } finally {
      await store.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe("redis job store caps", () => {
  const line = (n: number, size = 100) => masked(JSON.stringify({ type: "response", n, pad: "x".repeat(size) }));

  it("cuts a job's transcript at its cap with one `cut` line, and drops the rest", async () => {
    const backend = redisBackend({ maxTranscriptBytes: 1_000 });
    const [store] = backend.stores;
    try {
      await store.record(record("job-cap", new Date().toISOString(), { status: "running" }));
      await store.appendTranscript(
        "job-cap",
        Array.from({ length: 20 }, (_, i) => line(i)),
      );
      await store.appendTranscript("job-cap", [line(99)]);
      const { lines } = await store.readTranscript("job-cap", 0);
      expect(lines.length).toBeLessThan(20);
      expect(lines.at(-1)).toBe(CUT_LINE);
      expect(lines.filter((l) => l === CUT_LINE)).toHaveLength(1);
      expect((await store.get("job-cap"))?.transcriptCut).toBe(true);
    } finally {
      await backend.close();
    }
  });

  it("keeps the total under its cap by dropping the oldest jobs' transcripts and artifacts, never their records", async () => {
    const backend = redisBackend({ maxTotalBytes: 3_000 });
    const [store] = backend.stores;
    const raw = new Redis(redis.url);
    try {
      for (const [i, id] of ["job-1", "job-2", "job-3"].entries()) {
        await store.record(record(id, new Date(Date.now() + i).toISOString(), { status: "running" }));
        await store.appendTranscript(
          id,
          Array.from({ length: 10 }, (_, n) => line(n)),
        );
      }
      await store.putArtifact("job-3", { name: masked("a.txt"), contentType: "text/plain", content: maskedBytes(Buffer.alloc(500, 0x61)) });
      const total = Number(await raw.get(`${backend.prefix}:jobstore:total`));
      expect(total).toBeLessThanOrEqual(3_000);
      expect((await store.readTranscript("job-1", 0)).lines).toEqual([]);
      expect((await store.get("job-1"))?.transcriptCut).toBe(true);
      expect((await store.get("job-1"))?.status).toBe("running");
      expect((await store.readTranscript("job-3", 0)).lines).toHaveLength(10);
      // What the counter says is what the keys hold.
      let held = 0;
      for (const id of ["job-1", "job-2", "job-3"]) {
        for (const l of await raw.lrange(`${backend.prefix}:jobstore:lines:${id}`, 0, -1)) held += Buffer.byteLength(l);
      }
      // An artifact costs its content, its metadata (stored with its id added) and 256 bytes for its keys.
      const { id: _id, ...meta } = JSON.parse((await raw.hget(`${backend.prefix}:jobstore:arts:job-3`, "a1")) ?? "{}") as Record<string, unknown>;
      expect(held + 500 + Buffer.byteLength(JSON.stringify(meta)) + 256).toBe(total);
      // A job that cannot make room stores nothing more, and says so.
      await expect(
        store.putArtifact("job-3", { name: masked("b.txt"), contentType: "text/plain", content: maskedBytes(Buffer.alloc(4_000, 0x61)) }),
      ).rejects.toThrow("the artifact store is full");
    } finally {
      raw.disconnect();
      await backend.close();
    }
  });

  it("gives every per-job key an expiry, and prunes records past retention with their bytes", async () => {
    let now = Date.parse("2026-03-01T00:00:00.000Z");
    const backend = redisBackend({ retentionMs: 60_000 }, () => now);
    const [store] = backend.stores;
    const raw = new Redis(redis.url);
    try {
      await store.record(record("job-old", new Date(now).toISOString(), { status: "running" }));
      await store.appendTranscript("job-old", [line(1)]);
      await store.putArtifact("job-old", { name: masked("a.txt"), contentType: "text/plain", content: maskedBytes(Buffer.from("abc")) });
      const keys = await raw.keys(`${backend.prefix}:jobstore:*job-old*`);
      expect(keys.length).toBe(4);
      for (const key of keys) {
        const ttl = await raw.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
      }
      now += 120_000;
      await store.record(record("job-new", new Date(now).toISOString()));
      expect((await store.list(10)).map((job) => job.jobId)).toEqual(["job-new"]);
      expect(await raw.keys(`${backend.prefix}:jobstore:*job-old*`)).toEqual([]);
      expect(Number(await raw.get(`${backend.prefix}:jobstore:total`))).toBe(0);
    } finally {
      raw.disconnect();
      await backend.close();
    }
  });
});
