import { expect } from "vitest";
import { createProtectedPaths } from "../../src/agent/policy/protected-paths.js";
import { parseRepoConfig } from "../../src/config/index.js";
import { compilePathPattern } from "../../src/util/compile-path-pattern.js";
import { longestStall } from "./longest-stall.js";

/**
 * The protected_paths attacks of the sixth to ninth passes, against the host's own glob machine: each
 * entry is accepted as a repository's config (it is a glob a user may write), tests the path the attack
 * measured on without holding the event loop (1.5 s is generous: those paths took seconds to hours),
 * gives `expected` for it, and spends steps linear in the path's length (at most the machine's size
 * per character; a backtracking matcher's grow by a power of the length).
 */
export async function expectAnsweredInLinearTime(pattern: string, path: string, expected: boolean): Promise<void> {
  expect(parseRepoConfig(`protected_paths:\n  - ${JSON.stringify(pattern)}\n`).ok).toBe(true);
  const paths = createProtectedPaths([pattern]);
  let matched: boolean | undefined;
  const stall = await longestStall(async () => {
    matched = paths.matches(path);
  });
  expect(stall).toBeLessThan(1_500);
  expect(matched).toBe(expected);
  const compiled = compilePathPattern(pattern);
  if (!compiled.ok) throw new Error(compiled.problem);
  // On a fresh machine (no move cached yet), each character costs at most the machine's states and
  // edges, each edge with its set's search (at most 12 steps here): linear in the path, whatever the
  // entry repeats. A backtracking matcher's work grows by a power of the path's length instead.
  const fresh = compilePathPattern(pattern);
  if (!fresh.ok) throw new Error(fresh.problem);
  const steps = fresh.pattern.run(path, Number.POSITIVE_INFINITY).steps;
  expect(steps).toBeLessThanOrEqual((path.length + 1) * 12 * (fresh.pattern.size + 1) * 2);
  // And a second test of the same path costs about one step per character (the moves are cached).
  compiled.pattern.run(path, Number.POSITIVE_INFINITY);
  expect(compiled.pattern.run(path, Number.POSITIVE_INFINITY).steps).toBeLessThanOrEqual(2 * (path.length + 1));
}
