/**
 * GitHub's App manifest flow: the web page that takes a manifest (`POST /settings/apps/new` or
 * `/organizations/{org}/settings/apps/new`, form field `manifest`, `?state=`) and sends the browser to
 * the manifest's `redirect_url` with a one-time `code`; and `POST /app-manifests/{code}/conversions`,
 * which trades the code (once, within an hour) for the App's id, key and secrets. The registered App
 * becomes this server's App, so what the flow wrote is what a server then authenticates with.
 */
import { randomBytes } from "node:crypto";
import { generateAppKey } from "./app-jwt.js";
import { githubError, notFound, type AppInfo, type PendingManifest, type Route, type World } from "./fake-github-http.js";
import { appJson } from "./fake-github-render.js";
import { ensureUser, type PermissionLevel } from "./fake-github-state.js";

/** GitHub's lifetime for a manifest code. */
const CODE_TTL_MS = 60 * 60 * 1000;
const PAGE_PATH = /^\/(?:organizations\/([^/]+)\/)?settings\/apps\/new\/?$/;

export interface WebPage {
  status: number;
  html: string;
  headers?: Record<string, string>;
}

/** `/settings/apps/new` as the manifest flow uses it, or null for any other page. */
export function manifestPage(world: World, method: string, url: URL, raw: Buffer): WebPage | null {
  const match = PAGE_PATH.exec(url.pathname);
  if (!match) return null;
  if (method !== "POST")
    return { status: 200, html: html("Register new GitHub App", "<p>The fake GitHub only takes manifests here (POST, field <code>manifest</code>).</p>") };
  const text = new URLSearchParams(raw.toString("utf8")).get("manifest");
  let manifest: unknown;
  try {
    manifest = text === null ? undefined : JSON.parse(text);
  } catch {
    return errorPage(["The manifest is not valid JSON"]);
  }
  if (typeof manifest !== "object" || manifest === null || Array.isArray(manifest)) return errorPage(["A manifest is required"]);
  const fields = manifest as Record<string, unknown>;
  const problems = manifestProblems(world, fields);
  if (problems.length > 0) return errorPage(problems);
  const org = match[1];
  const pending: PendingManifest = {
    manifest: fields,
    owner: org ?? "tackle-dev",
    ownerType: org ? "Organization" : "User",
    createdAt: Date.now(),
  };
  const code = randomBytes(10).toString("hex");
  world.manifests.set(code, pending);
  const redirect = new URL(String(fields.redirect_url));
  redirect.searchParams.set("code", code);
  const state = url.searchParams.get("state");
  if (state !== null) redirect.searchParams.set("state", state);
  return { status: 302, html: html("Redirecting", `<a href="${redirect.href}">Continue</a>`), headers: { location: redirect.href } };
}

/** What GitHub's form would refuse, in its words where known. */
function manifestProblems(world: World, fields: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const name = typeof fields.name === "string" ? fields.name.trim() : "";
  if (name === "") problems.push("Name can't be blank");
  else if (name.length > 34) problems.push("Name is too long (maximum is 34 characters)");
  else if (world.appNames.has(name.toLowerCase())) problems.push("Name is already in use");
  if (!isHttpUrl(fields.url)) problems.push("Homepage URL can't be blank");
  const hook = fields.hook_attributes as { url?: unknown } | undefined;
  if (hook !== undefined && !isHttpUrl(hook.url)) problems.push("Hook URL can't be blank");
  // GitHub shows the new App's page without one; the flow under test always sets it.
  if (!isHttpUrl(fields.redirect_url)) problems.push("Redirect URL is required by the fake GitHub's manifest flow");
  const permissions = fields.default_permissions ?? {};
  if (typeof permissions !== "object" || permissions === null) problems.push("Default permissions must be a mapping");
  else {
    for (const [scope, level] of Object.entries(permissions)) {
      if (level !== "read" && level !== "write" && level !== "admin") problems.push(`Default permission ${scope} must be read or write`);
    }
  }
  if (fields.default_events !== undefined && !Array.isArray(fields.default_events)) problems.push("Default events must be a list");
  return problems;
}

function convert(world: World, code: string) {
  const pending = world.manifests.get(code);
  world.manifests.delete(code);
  if (!pending || Date.now() - pending.createdAt > CODE_TTL_MS) throw notFound();
  const { manifest } = pending;
  const name = String(manifest.name).trim();
  if (world.appNames.has(name.toLowerCase())) throw githubError(422, "Name is already in use");
  const key = generateAppKey();
  const hook = manifest.hook_attributes as { active?: unknown } | undefined;
  const app: AppInfo = {
    id: world.app.id + 1,
    slug: name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, ""),
    name,
    owner: pending.owner,
    privateKeyPem: key.privateKeyPem,
    publicKey: key.publicKey,
    permissions: (manifest.default_permissions ?? {}) as Record<string, PermissionLevel>,
    events: (manifest.default_events ?? []) as string[],
    webhookSecret: randomBytes(20).toString("hex"),
    ...(typeof manifest.description === "string" ? { description: manifest.description } : {}),
  };
  world.app = app;
  world.appNames.add(name.toLowerCase());
  ensureUser(world.state, pending.owner, pending.ownerType);
  ensureUser(world.state, `${app.slug}[bot]`, "Bot");
  return {
    status: 201,
    body: {
      ...appJson(world),
      client_secret: randomBytes(20).toString("hex"),
      webhook_secret: hook?.active === false ? null : app.webhookSecret,
      pem: app.privateKeyPem,
    },
  };
}

export const manifestRoutes: Route[] = [
  { method: "POST", path: "/app-manifests/{code}/conversions", auth: "none", handler: (ctx) => convert(ctx.world, ctx.params.code ?? "") },
];

function errorPage(problems: string[]): WebPage {
  return { status: 422, html: html("Register new GitHub App", `<ul>${problems.map((p) => `<li class="error">${p}</li>`).join("")}</ul>`) };
}

function html(title: string, body: string): string {
  return `<!DOCTYPE html><html><head><title>${title} · GitHub</title></head><body><h1>${title}</h1>${body}</body></html>`;
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}
