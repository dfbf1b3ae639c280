/**
 * The dashboard's only script and stylesheet, served as files from `/dashboard/static/` so the pages'
 * CSP can forbid inline code. The script follows a running job: it appends the timeline pieces the
 * server sends (already escaped there) and updates the figures by name, as text.
 */
export const JOB_SCRIPT = `"use strict";
(() => {
  const timeline = document.getElementById("tl:main");
  const main = document.querySelector("main.job");
  const url = timeline && timeline.dataset.events;
  if (!url || !main) return;
  const source = new EventSource(url);
  source.addEventListener("pieces", (event) => {
    for (const piece of JSON.parse(event.data)) {
      const target = document.getElementById(piece.target) || timeline;
      target.insertAdjacentHTML("beforeend", piece.html);
    }
  });
  source.addEventListener("job", (event) => {
    const job = JSON.parse(event.data);
    for (const element of document.querySelectorAll("[data-field]")) {
      const value = job.fields[element.dataset.field];
      if (typeof value === "string") element.textContent = value;
      if (element.dataset.field === "status") element.className = "status " + job.fields.status;
    }
    const artifacts = document.getElementById("artifacts");
    if (artifacts && typeof job.artifacts === "string") artifacts.innerHTML = job.artifacts;
  });
  source.addEventListener("end", () => {
    source.close();
    main.dataset.live = "ended";
  });
})();
`;

export const STYLESHEET = `
:root { color-scheme: light dark; --muted: #6a737d; --line: #d0d7de; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; }
header { display: flex; gap: 1.5em; align-items: center; padding: .6em 1.2em; border-bottom: 1px solid var(--line); }
header .home { font-weight: 700; text-decoration: none; }
header nav { flex: 1; display: flex; gap: 1em; }
main { padding: 1em 1.5em; max-width: 1200px; }
table.jobs { border-collapse: collapse; width: 100%; }
table.jobs th, table.jobs td { text-align: left; padding: .35em .6em; border-bottom: 1px solid var(--line); }
.status { font-weight: 600; padding: 0 .4em; border-radius: 4px; border: 1px solid var(--line); font-size: .85em; }
.status.done, .status.no_changes { color: var(--ok); }
.status.failed, .status.cancelled { color: var(--bad); }
.status.running, .status.budget_exhausted { color: var(--warn); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; }
dl.facts dt { color: var(--muted); }
.timeline .event { margin: .5em 0; padding: .4em .6em; border-left: 3px solid var(--line); }
.timeline .message .who, .timeline .usage, .meta { color: var(--muted); font-size: .85em; }
.timeline .message .text { white-space: pre-wrap; }
.timeline .call { border-left-color: #0969da; }
.timeline .call .tool { font-weight: 700; font-family: ui-monospace, monospace; }
.timeline .result.error > summary { color: var(--bad); }
.timeline .result.policy > summary, .timeline .approval { color: var(--warn); }
.timeline .approval.approved { color: var(--ok); }
.timeline .agent { margin: .5em 0 .5em 1.2em; padding-left: .8em; border-left: 2px dashed var(--muted); }
.timeline .agent-head { font-weight: 600; color: var(--muted); }
.timeline .end { border-left-color: var(--ok); }
pre { white-space: pre-wrap; word-break: break-word; max-height: 30em; overflow: auto; background: rgba(127,127,127,.08); padding: .5em; margin: .3em 0; }
.login { max-width: 24em; margin: 4em auto; }
.login form { display: grid; gap: .6em; }
.problem { color: var(--bad); }
.empty, .note { color: var(--muted); }
`;
