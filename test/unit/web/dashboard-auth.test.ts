import type http from "node:http";
import { describe, expect, it } from "vitest";
import { createDashboardAuth, SESSION_COOKIE } from "../../../src/web/dashboard/dashboard-auth.js";

const TOKEN = "a-dashboard-token-of-32-characters";
const HOUR = 60 * 60 * 1000;

function request(headers: Record<string, string>): http.IncomingMessage {
  return { headers, socket: {} } as unknown as http.IncomingMessage;
}

function cookieValue(setCookie: string): string {
  const match = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(setCookie);
  if (!match) throw new Error(`no session cookie in ${setCookie}`);
  return match[1]!;
}

describe("dashboard sign-in cookie", () => {
  it("holds neither the token nor a value that lasts: the server refuses it after 12 hours", () => {
    let now = Date.parse("2026-12-02T08:00:00Z");
    const auth = createDashboardAuth({ token: TOKEN, publicUrl: null, clock: () => now });
    const setCookie = auth.loginCookie(request({ host: "tackle.test" }));
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain(`Max-Age=${12 * 60 * 60}`);
    const value = cookieValue(setCookie);
    expect(value).not.toContain(TOKEN);
    const withCookie = request({ cookie: `other=1; ${SESSION_COOKIE}=${value}` });
    expect(auth.authorized(withCookie)).toBe(true);
    now += 11 * HOUR;
    expect(auth.authorized(withCookie)).toBe(true);
    // A browser drops it at Max-Age; a copy sent on after that is refused by the server too.
    now += 2 * HOUR;
    expect(auth.authorized(withCookie)).toBe(false);
  });

  it("refuses a cookie whose expiry was moved, one signed with another token, and a malformed one", () => {
    const now = Date.parse("2026-12-02T08:00:00Z");
    const auth = createDashboardAuth({ token: TOKEN, publicUrl: null, clock: () => now });
    const [expires, mac] = cookieValue(auth.loginCookie(request({}))).split(".");
    const later = String(Number(expires) + 365 * 24 * 60 * 60);
    expect(auth.authorized(request({ cookie: `${SESSION_COOKIE}=${later}.${mac}` }))).toBe(false);
    const other = createDashboardAuth({ token: "another-token-of-enough-length", publicUrl: null, clock: () => now });
    expect(auth.authorized(request({ cookie: `${SESSION_COOKIE}=${cookieValue(other.loginCookie(request({})))}` }))).toBe(false);
    for (const bad of ["", ".", `${expires}`, `${expires}.`, `x.${mac}`, `${expires}.${mac}.x`, `-1.${mac}`]) {
      expect(auth.authorized(request({ cookie: `${SESSION_COOKIE}=${bad}` })), bad).toBe(false);
    }
    expect(auth.authorized(request({ cookie: `${SESSION_COOKIE}=${expires}.${mac}` }))).toBe(true);
  });

  it("takes the token as a bearer header, and nothing else in its place", () => {
    const auth = createDashboardAuth({ token: TOKEN, publicUrl: null });
    expect(auth.authorized(request({ authorization: `Bearer ${TOKEN}` }))).toBe(true);
    expect(auth.authorized(request({ authorization: `bearer ${TOKEN}` }))).toBe(true);
    expect(auth.authorized(request({ authorization: `Bearer ${TOKEN}x` }))).toBe(false);
    expect(auth.authorized(request({ authorization: `Basic ${TOKEN}` }))).toBe(false);
    expect(auth.authorized(request({ cookie: `${SESSION_COOKIE}=${TOKEN}` }))).toBe(false);
  });
});
