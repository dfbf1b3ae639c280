import { createHmac } from "node:crypto";
import { equalSecrets } from "../../util/equal-secrets.js";
import type http from "node:http";

/** The login cookie's name; its value is never the token (see `sessionValue`). */
export const SESSION_COOKIE = "tackle_dashboard";

/**
 * Who may see the dashboard: a request with `Authorization: Bearer <token>`, or with the cookie the
 * login form sets. The cookie holds its expiry and an HMAC of it keyed by the token: it proves the
 * token was given, survives restarts and replicas, does not reveal the token, and is refused by the
 * server once it expires (a copied cookie lasts 12 hours at most) or the token changes.
 */
export interface DashboardAuth {
  authorized(req: http.IncomingMessage): boolean;
  /** True when `given` is the token. */
  accepts(given: string): boolean;
  /** The Set-Cookie header of a login (Secure on https), and of a logout. */
  loginCookie(req: http.IncomingMessage): string;
  logoutCookie(req: http.IncomingMessage): string;
  /** Whether an unsafe request comes from the dashboard's own origin (its Origin header). */
  sameOrigin(req: http.IncomingMessage): boolean;
}

/** How long a login lasts, in the cookie's Max-Age and in the value the server checks. */
const SESSION_SECONDS = 12 * 60 * 60;

export function createDashboardAuth(options: { token: string; publicUrl: string | null; clock?: () => number }): DashboardAuth {
  const clock = options.clock ?? Date.now;
  const sign = (expires: string): string => createHmac("sha256", options.token).update(`tackle dashboard session v2 ${expires}`).digest("base64url");
  const equal = equalSecrets;
  const publicOrigin = options.publicUrl === null ? null : new URL(options.publicUrl).origin;
  const secure = (req: http.IncomingMessage): boolean =>
    (req.socket as { encrypted?: boolean }).encrypted === true ||
    String(req.headers["x-forwarded-proto"] ?? "")
      .split(",")[0]
      ?.trim() === "https" ||
    publicOrigin?.startsWith("https:") === true;
  const cookie = (req: http.IncomingMessage, value: string, maxAge: number): string =>
    `${SESSION_COOKIE}=${value}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure(req) ? "; Secure" : ""}`;

  return {
    authorized(req) {
      const header = req.headers.authorization;
      if (typeof header === "string" && /^bearer\s+/i.test(header)) return equal(header.replace(/^bearer\s+/i, "").trim(), options.token);
      const parts = /^(\d{1,12})\.([\w-]+)$/.exec(readCookie(req, SESSION_COOKIE) ?? "");
      if (parts === null) return false;
      const [, expires = "", mac = ""] = parts;
      // The expiry is checked after the MAC, so a forged one is refused whatever it says.
      return equal(mac, sign(expires)) && Number(expires) * 1000 > clock();
    },
    accepts: (given) => equal(given, options.token),
    loginCookie(req) {
      const expires = String(Math.floor(clock() / 1000) + SESSION_SECONDS);
      return cookie(req, `${expires}.${sign(expires)}`, SESSION_SECONDS);
    },
    logoutCookie: (req) => cookie(req, "", 0),
    sameOrigin(req) {
      const origin = req.headers.origin;
      if (typeof origin !== "string" || origin === "null") return false;
      if (publicOrigin !== null && origin === publicOrigin) return true;
      const host = req.headers.host;
      return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
    },
  };
}

function readCookie(req: http.IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}
