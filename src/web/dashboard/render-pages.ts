import type { ArtifactMeta, JobRecord, StoredJob } from "../../jobs/job-store.js";
import { formatCost, formatDuration, formatTokens, html, page, SafeHtml } from "./html.js";
import { TIMELINE_ROOT } from "./render-timeline.js";

export const jobPath = (jobId: string): string => `/dashboard/jobs/${encodeURIComponent(jobId)}`;

export function renderLoginPage(problem?: string): string {
  return page(
    "Sign in",
    html`<main class="login">
<h1>Tackle dashboard</h1>
<form method="post" action="/dashboard/login">
<label for="token">Dashboard token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
${problem ? html`<p class="problem" role="alert">${problem}</p>` : ""}
</main>`,
  );
}

function header(queues: boolean): SafeHtml {
  return html`<header><a class="home" href="/dashboard">Tackle</a><nav><a href="/dashboard">Jobs</a>${queues ? html` <a href="/dashboard/queues">Queue</a>` : ""}</nav>
<form method="post" action="/dashboard/logout"><button type="submit">Sign out</button></form></header>`;
}

/** The figures a job row and a job page show, as text; the live page updates them by name. */
export function jobFields(job: JobRecord): Record<string, string> {
  const tokens =
    job.inputTokens === undefined ? "—" : `${formatTokens((job.inputTokens ?? 0) + (job.cacheReadTokens ?? 0))} in · ${formatTokens(job.outputTokens)} out`;
  const duration = job.durationMs ?? (job.startedAt === undefined ? undefined : Date.now() - Date.parse(job.startedAt));
  return {
    status: job.status,
    reason: job.reason ?? "",
    duration: formatDuration(duration),
    turns: job.turns === undefined ? "—" : `${job.turns}${job.subagentTurns ? ` (+${job.subagentTurns} in subagents)` : ""}`,
    tokens,
    cost: formatCost(job.costUsd),
  };
}

export function renderJobsPage(jobs: readonly JobRecord[], options: { queues: boolean }): string {
  const rows = jobs.map((job) => {
    const f = jobFields(job);
    return html`<tr>
<td><span class="status ${job.status}">${f.status}</span></td>
<td><a href="${jobPath(job.jobId)}">${job.repo}#${job.number}</a></td>
<td>${job.trigger} by @${job.actor}</td>
<td>${job.enqueuedAt.replace("T", " ").slice(0, 19)}</td>
<td>${f.duration}</td><td>${f.turns}</td><td>${f.tokens}</td><td>${f.cost}</td>
</tr>`;
  });
  return page(
    "Jobs",
    html`${header(options.queues)}<main>
<h1>Jobs</h1>
${
  jobs.length === 0
    ? html`<p class="empty">No jobs recorded yet.</p>`
    : html`<table class="jobs"><thead><tr><th>Status</th><th>Issue</th><th>Trigger</th><th>Queued (UTC)</th><th>Duration</th><th>Turns</th><th>Tokens</th><th>Cost</th></tr></thead>
<tbody>${rows}</tbody></table>`
}
</main>`,
  );
}

export function renderArtifacts(job: StoredJob): SafeHtml {
  if (job.artifacts.length === 0) return html`<p class="empty">No artifacts.</p>`;
  const item = (artifact: ArtifactMeta) =>
    html`<li><a href="${jobPath(job.jobId)}/artifacts/${artifact.id}" download="${artifact.name}">${artifact.name}</a> <span class="meta">${artifact.id} · ${formatBytes(artifact.bytes)}</span>${artifact.description ? html` — ${artifact.description}` : ""}</li>`;
  return html`<ul>${job.artifacts.map(item)}</ul>`;
}

export function renderJobPage(job: StoredJob, timeline: string, cursor: number, options: { queues: boolean; live: boolean }): string {
  const f = jobFields(job);
  const field = (name: string) => html`<span data-field="${name}">${f[name] ?? ""}</span>`;
  const events = `${jobPath(job.jobId)}/events?cursor=${cursor}`;
  return page(
    `${job.repo}#${job.number}`,
    html`${header(options.queues)}<main class="job" data-live="${options.live ? "live" : "ended"}">
<h1>${job.repo}#${job.number} <span class="status ${job.status}" data-field="status">${f.status}</span></h1>
<dl class="facts">
<dt>Job</dt><dd>${job.jobId}</dd>
<dt>Trigger</dt><dd>${job.trigger} by @${job.actor}</dd>
<dt>Reason</dt><dd>${field("reason")}</dd>
<dt>Duration</dt><dd>${field("duration")}</dd>
<dt>Turns</dt><dd>${field("turns")}</dd>
<dt>Tokens</dt><dd>${field("tokens")}</dd>
<dt>Cost</dt><dd>${field("cost")}</dd>
${job.pullRequestUrl && /^https?:\/\//.test(job.pullRequestUrl) ? html`<dt>Pull request</dt><dd><a href="${job.pullRequestUrl}" rel="noreferrer">${job.pullRequestUrl}</a></dd>` : ""}
</dl>
<h2>Artifacts</h2>
<section id="artifacts">${renderArtifacts(job)}</section>
<h2>Timeline</h2>
${job.transcriptCut ? html`<p class="note">Part of this transcript was not kept (the store's caps); see the README's Dashboard section.</p>` : ""}
<div class="timeline" id="${TIMELINE_ROOT}" data-events="${options.live ? events : ""}">${new SafeHtml(timeline)}</div>
</main>`,
    { script: options.live },
  );
}

export function renderNotFound(what: string): string {
  return page("Not found", html`<main><h1>Not found</h1><p>${what}</p><p><a href="/dashboard">All jobs</a></p></main>`);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
