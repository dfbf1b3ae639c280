import { test } from "vitest";
import { sanitizeUntrustedText } from "/work/main/src/triggers/sanitize.js";
import { parseCommand } from "/work/main/src/triggers/parse-command.js";
const cases: Record<string, string> = {
  spacesTag: "<a " + " ".repeat(60000),
  manyTags: "<a b>".repeat(12000),
  backticks: "`x``".repeat(16000),
  backticks2: Array.from({length: 300}, (_, i) => "`".repeat(i+1) + "x").join(""),
  hiddenUnclosed: "<div hidden>".repeat(5000),
  comments: "<!--".repeat(15000),
  mentions: "@tackle ".repeat(8000),
  links: "](a ".repeat(15000),
  style: '<p style="' + "a".repeat(60000),
  imgs: "![".repeat(30000),
};
test("perf", () => {
  for (const [name, text] of Object.entries(cases)) {
    let t = performance.now(); sanitizeUntrustedText(text); const s = performance.now() - t;
    t = performance.now(); parseCommand(text, "tackle"); const p = performance.now() - t;
    console.log(name, text.length, s.toFixed(0), p.toFixed(0));
  }
});
