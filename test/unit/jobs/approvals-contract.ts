import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Approvals } from "../../../src/jobs/index.js";

/**
 * Two views of one store: `asker` is where the job asks and waits, `answerer` where the webhook
 * answers. The embedded backend passes one object twice; the Redis one two instances on their own
 * connections, as a worker and the server would be.
 */
export interface ApprovalsPair {
  asker: Approvals;
  answerer: Approvals;
  close(): Promise<void>;
}

const LANE = "octo/widgets#7";
const OTHER_LANE = "octo/widgets#8";

const request = (deadlineInMs = 30_000) => ({ jobId: "job-1", summary: "Bash: the command runs sudo", deadline: Date.now() + deadlineInMs });

/** The behaviour both backends share. */
export function approvalsContract(name: string, makePair: () => Promise<ApprovalsPair>): void {
  describe(`approvals contract: ${name}`, () => {
    let pair: ApprovalsPair;
    beforeEach(async () => {
      pair = await makePair();
    });
    afterEach(async () => {
      await pair.close();
    });

    it("an answer given before the wait starts counts", async () => {
      const id = await pair.asker.ask(LANE, request());
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(true);
      const outcome = await pair.asker.wait(LANE, id, { deadline: Date.now() + 30_000 });
      expect(outcome).toEqual({ approved: true, by: "alice", reason: "answered" });
    });

    it("an answer during the wait wakes the waiter, with the denier's text", async () => {
      const id = await pair.asker.ask(LANE, request());
      const started = Date.now();
      const waiting = pair.asker.wait(LANE, id, { deadline: Date.now() + 30_000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await pair.answerer.answer(LANE, { approved: false, by: "bob", text: "not now" })).toBe(true);
      expect(await waiting).toEqual({ approved: false, by: "bob", text: "not now", reason: "answered" });
      // Woken by the answer, not by a poll or the deadline.
      expect(Date.now() - started).toBeLessThan(1_500);
    });

    it("the first answer wins; later ones, and any after the wait returned, find nothing pending", async () => {
      const id = await pair.asker.ask(LANE, request());
      expect(await pair.answerer.answer(LANE, { approved: false, by: "bob" })).toBe(true);
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(false);
      expect(await pair.asker.wait(LANE, id, { deadline: Date.now() + 30_000 })).toMatchObject({ approved: false, by: "bob" });
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(false);
    });

    it("answering a lane with no question returns false", async () => {
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(false);
      await pair.asker.ask(OTHER_LANE, request());
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(false);
    });

    it("the deadline ends the wait as a timeout, and the question is gone", async () => {
      const id = await pair.asker.ask(LANE, request(300));
      const started = Date.now();
      const outcome = await pair.asker.wait(LANE, id, { deadline: started + 300 });
      expect(outcome).toEqual({ approved: false, reason: "timeout" });
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(false);
    });

    it("a question past its deadline takes no answer, even with nobody waiting", async () => {
      await pair.asker.ask(LANE, request(100));
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(false);
    });

    it("an abort ends the wait at once and drops the question", async () => {
      const id = await pair.asker.ask(LANE, request());
      const controller = new AbortController();
      const waiting = pair.asker.wait(LANE, id, { deadline: Date.now() + 30_000, signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      expect(await waiting).toEqual({ approved: false, reason: "aborted" });
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(false);
    });

    it("a signal aborted before the wait ends it at once", async () => {
      const id = await pair.asker.ask(LANE, request());
      expect(await pair.asker.wait(LANE, id, { deadline: Date.now() + 30_000, signal: AbortSignal.abort() })).toEqual({
        approved: false,
        reason: "aborted",
      });
    });

    it("a new question replaces the lane's earlier one (a rerun asking again)", async () => {
      const stale = await pair.asker.ask(LANE, request());
      const fresh = await pair.asker.ask(LANE, request());
      expect(fresh).not.toBe(stale);
      expect(await pair.asker.wait(LANE, stale, { deadline: Date.now() + 30_000 })).toEqual({ approved: false, reason: "timeout" });
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(true);
      expect(await pair.asker.wait(LANE, fresh, { deadline: Date.now() + 30_000 })).toMatchObject({ approved: true, reason: "answered" });
    });

    it("lanes are independent", async () => {
      const a = await pair.asker.ask(LANE, request());
      const b = await pair.asker.ask(OTHER_LANE, request());
      expect(await pair.answerer.answer(OTHER_LANE, { approved: false, by: "bob" })).toBe(true);
      expect(await pair.asker.wait(OTHER_LANE, b, { deadline: Date.now() + 30_000 })).toMatchObject({ approved: false, by: "bob" });
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(true);
      expect(await pair.asker.wait(LANE, a, { deadline: Date.now() + 30_000 })).toMatchObject({ approved: true, by: "alice" });
    });

    it("clear drops the question only when it is still the lane's", async () => {
      const first = await pair.asker.ask(LANE, request());
      await pair.asker.clear(LANE, first);
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(false);
      await pair.asker.ask(LANE, request());
      await pair.asker.clear(LANE, first);
      expect(await pair.answerer.answer(LANE, { approved: true, by: "alice" })).toBe(true);
    });

    it("close ends pending waits as aborted", async () => {
      const id = await pair.asker.ask(LANE, request());
      const waiting = pair.asker.wait(LANE, id, { deadline: Date.now() + 30_000 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await pair.asker.close();
      expect(await waiting).toEqual({ approved: false, reason: "aborted" });
    });
  });
}
