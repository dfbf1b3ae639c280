// The redactor (every tool result, transcript line, log line and GitHub write, in the Tackle process) looked
// for a JWT with /eyJ[A-Za-z0-9_-]{5,}\.eyJ…/g. `eyJ` is itself made of the characters read after it, so in one
// long run that repeats it (`eyJeyJeyJ…`, no `.`) the search read the whole run from each `eyJ` and failed:
// quadratic. 60,000 characters held the event loop 1.4 s (measured on a shared two-core machine), and a
// command's output is redacted before it is cut (up to 50 MB). Now a run whose first `eyJ` leads to no JWT
// is passed over whole: no later `eyJ` in it can lead to one.
//
// No clock: on the code before, the big case (600,000 characters) takes minutes, past the test's timeout;
// linear code answers at once.
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/util/redact.js";

const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";

describe("the redactor on a long run of eyJ", () => {
  const redact = createRedactor([]);

  it("answers at once on 600,000 characters, and still masks a JWT after the run or glued to it", () => {
    const run = "eyJ".repeat(200_000);
    expect(redact(run)).toBe(run);
    expect(redact(`${run} ${JWT}`)).toBe(`${run} [REDACTED:jwt]`);
    // The run is the JWT's header: masked from its first eyJ.
    expect(redact(`${run}.eyJzdWIiOiIx.dozjgNryP4J3`)).toBe("[REDACTED:jwt]");
  });
});
