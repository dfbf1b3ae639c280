/**
 * Plumbing shared by the fake GitHub's REST routes: the route table type, GitHub-shaped errors,
 * and pagination with a Link header that Octokit's paginate() follows.
 */
import type { KeyObject } from "node:crypto";
import type { GitContext } from "./fake-github-git.js";
import type { GitHubState, TokenPermissions, TokenRecord } from "./fake-github-state.js";
import type { GitHubLinks } from "./github-json.js";

export const DOCS_URL = "https://docs.github.com/rest";

export interface AppInfo {
  id: number;
  slug: string;
  name: string;
  owner: string;
  privateKeyPem: string;
  publicKey: KeyObject;
  permissions: TokenPermissions;
  events: string[];
  /** What signs the App's webhook deliveries. */
  webhookSecret: string;
  /** @defaultValue "Fake GitHub App" */
  description?: string;
}

/** An App registration started on `/settings/apps/new`, waiting for its code to be converted. */
export interface PendingManifest {
  manifest: Record<string, unknown>;
  /** The account that owns the App: the organization of `/organizations/{org}/settings/apps/new`, else the signed-in user. */
  owner: string;
  ownerType: "User" | "Organization";
  createdAt: number;
}

/** Everything a route handler may read or change. */
export interface World {
  state: GitHubState;
  git: GitContext;
  links: GitHubLinks;
  app: AppInfo;
  tokenTtlMs: number;
  /** Manifest codes handed out by the "new App" page, by code; each converts once. */
  manifests: Map<string, PendingManifest>;
  /** Names of Apps registered on this server (GitHub's are unique), lower-cased. */
  appNames: Set<string>;
}

export type Auth = { kind: "app" } | { kind: "token"; token: TokenRecord } | { kind: "none" };

export interface RouteContext {
  world: World;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  auth: Auth;
  headers: Record<string, string | string[] | undefined>;
  /** The request URL as the client saw it, for Link headers. */
  url: URL;
}

export interface RouteResult {
  status?: number;
  body?: unknown;
  /** Sent verbatim instead of JSON (raw media type). */
  raw?: Buffer;
  headers?: Record<string, string>;
}

export interface Route {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** Octokit-style template, e.g. `/repos/{owner}/{repo}/issues/{issue_number}`; `{+name}` matches across slashes. */
  path: string;
  /** `none`: GitHub asks for no credential (the manifest conversion, whose code is one). */
  auth: "jwt" | "token" | "none";
  handler: (ctx: RouteContext) => RouteResult | Promise<RouteResult>;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body.message ?? status));
  }
}

/** GitHub's error body: message, documentation_url and (since 2024) the status as a string. */
export function githubError(status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): HttpError {
  return new HttpError(status, { message, documentation_url: DOCS_URL, status: String(status), ...extra }, headers);
}

export const notFound = (message = "Not Found") => githubError(404, message);

export function validationFailed(errors: Array<Record<string, unknown>>): HttpError {
  return githubError(422, "Validation Failed", { errors });
}

export function missingField(resource: string, field: string): HttpError {
  return validationFailed([{ resource, code: "missing_field", field }]);
}

interface CompiledRoute {
  route: Route;
  regex: RegExp;
  names: string[];
}

export function compileRoutes(routes: Route[]): CompiledRoute[] {
  return routes.map((route) => {
    const names: string[] = [];
    const source = route.path.replace(/\{(\+?)(\w+)\}/g, (_, greedy: string, name: string) => {
      names.push(name);
      return greedy ? "(.*)" : "([^/]+)";
    });
    return { route, names, regex: new RegExp(`^${source}/?$`) };
  });
}

export function matchRoute(compiled: CompiledRoute[], method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
  for (const { route, regex, names } of compiled) {
    if (route.method !== method) continue;
    const match = regex.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    names.forEach((name, i) => {
      params[name] = decodeURIComponent(match[i + 1] ?? "");
    });
    return { route, params };
  }
  return undefined;
}

/** Slices one page (per_page default 30, max 100) and builds GitHub's Link header. */
export function paginate<T>(items: T[], ctx: Pick<RouteContext, "query" | "url">): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(Math.max(Number(ctx.query.get("per_page")) || 30, 1), 100);
  const page = Math.max(Number(ctx.query.get("page")) || 1, 1);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const link = (target: number, rel: string) => {
    const url = new URL(ctx.url.href);
    url.searchParams.set("per_page", String(perPage));
    url.searchParams.set("page", String(target));
    return `<${url.href}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(page - 1, "prev"));
  if (page < last) links.push(link(page + 1, "next"), link(last, "last"));
  if (page > 1) links.push(link(1, "first"));
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length > 0 ? { link: links.join(", ") } : {},
  };
}

export function bodyObject(ctx: RouteContext): Record<string, unknown> {
  const body = ctx.body;
  return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

export function tokenOf(ctx: RouteContext): TokenRecord {
  if (ctx.auth.kind !== "token") throw githubError(401, "Bad credentials");
  return ctx.auth.token;
}
