// `.github/tackle.yml` is parsed in the Tackle process, synchronously, on the event loop every job,
// webhook and BullMQ lock renewal shares (src/config/repo-config.ts › parseRepoConfig, called by
// processJob on whatever `getFile` returns: GitHub's contents API gives up to 1 MB). Two steps are
// quadratic in the number of keys of one mapping:
//   - `parseDocument(…, { uniqueKeys: true })`: the yaml library compares each key with every key before
//     it (20,000 keys: 7 s of the parse alone);
//   - for each unknown key, `lineOf` searches the whole mapping again for that key's node
//     (`parent.items.find`), so the problem list costs as much again.
// A repository commits one mapping of ~100,000 short distinct keys (`k0: 1`, `k1: 1`, … under 1 MB), a
// writer triggers a job, and the process is held: measured 5,000 keys 1.5 s, 10,000 4 s, 20,000 15 s,
// and the 1 MB file ~9.5 minutes (565 s on a loaded 2-core host) before `config_invalid` is answered.
// Nothing interrupts it (the job's deadline and /tackle stop are timers), every other job of the process
// stands still meanwhile, and with BullMQ the held worker's locks expire, so the job is handed to the next
// worker to be held again. The keys need not be unknown: the same mapping under `mcp_servers.x.env`
// (whose names are all accepted and whose count is not limited) costs the parse just the same.
//
// No clock: on the code before, each case takes minutes, past the test's timeout.
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";

/** `key0: 1`, `key1: 1`, … up to `maxChars`, each line indented by `indent`. */
function manyKeys(prefix: string, indent: string, maxChars: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < maxChars; i += 1) {
    const line = `${indent}${prefix}${i}: "1"\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join("");
}

const UNDER_ONE_MB = 1_000_000;

describe("a .github/tackle.yml of one mapping with very many keys", () => {
  it("is answered at once with a problem, not parsed for minutes on the event loop", () => {
    const parsed = parseRepoConfig(manyKeys("k", "", UNDER_ONE_MB));
    expect(parsed.ok).toBe(false);
  });

  it("the same keys as an MCP server's env: answered at once, not parsed for minutes", () => {
    const head = "mcp_servers:\n  x:\n    command: [server]\n    env:\n";
    const parsed = parseRepoConfig(head + manyKeys("K", "      ", UNDER_ONE_MB - head.length));
    // Whether so many variables are a problem is the fix's choice; what matters is the time.
    expect(typeof parsed.ok).toBe("boolean");
  });
});
