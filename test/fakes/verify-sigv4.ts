/**
 * Checks an AWS Signature Version 4 the way AWS does, from the published algorithm (not the AWS SDK's
 * signer, so the SDK's signature is checked against an independent reading): rebuild the canonical
 * request from what arrived, derive the signing key from the known secret, and compare signatures.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export interface SignedRequest {
  method: string;
  /** The path and query exactly as received (still percent-encoded). */
  rawUrl: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface SigV4Expectation {
  accessKeyId: string;
  secretAccessKey: string;
  /** Required as x-amz-security-token (and signed) when set. */
  sessionToken?: string;
  region: string;
  service: string;
  /** AWS refuses a request signed more than 5 minutes away from its clock. @defaultValue Date.now() */
  now?: number;
}

export type SigV4Verdict = { ok: true; signedHeaders: string[] } | { ok: false; reason: string };

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const MAX_SKEW_MS = 5 * 60_000;

export function verifySigV4(request: SignedRequest, expected: SigV4Expectation): SigV4Verdict {
  const header = (name: string): string | undefined => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(",") : value;
  };
  const match = AUTHORIZATION.exec(header("authorization") ?? "");
  if (!match) return { ok: false, reason: "missing or malformed AWS4-HMAC-SHA256 Authorization header" };
  const [, accessKeyId, day, region, service, signedList, signature] = match as unknown as [string, string, string, string, string, string, string];
  if (accessKeyId !== expected.accessKeyId) return { ok: false, reason: `unknown access key ${accessKeyId}` };
  if (region !== expected.region || service !== expected.service)
    return { ok: false, reason: `credential scope ${region}/${service}, expected ${expected.region}/${expected.service}` };
  const amzDate = header("x-amz-date") ?? "";
  const parsed = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!parsed) return { ok: false, reason: "missing or malformed x-amz-date" };
  if (amzDate.slice(0, 8) !== day) return { ok: false, reason: "the credential scope's date is not x-amz-date's" };
  const signedAt = Date.UTC(+parsed[1]!, +parsed[2]! - 1, +parsed[3]!, +parsed[4]!, +parsed[5]!, +parsed[6]!);
  if (Math.abs((expected.now ?? Date.now()) - signedAt) > MAX_SKEW_MS) return { ok: false, reason: "signature expired (x-amz-date more than 5 minutes away)" };
  const signedHeaders = signedList.split(";");
  for (const required of ["host", "x-amz-date", ...(expected.sessionToken === undefined ? [] : ["x-amz-security-token"])]) {
    if (!signedHeaders.includes(required)) return { ok: false, reason: `${required} is not signed` };
  }
  if (expected.sessionToken !== undefined && header("x-amz-security-token") !== expected.sessionToken) return { ok: false, reason: "wrong session token" };
  const payloadHash = sha256Hex(request.body);
  const declared = header("x-amz-content-sha256");
  if (declared !== undefined && declared !== payloadHash) return { ok: false, reason: "x-amz-content-sha256 is not the body's hash" };

  const canonicalHeaders = signedHeaders.map((name) => `${name}:${(header(name) ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalUri(request.rawUrl),
    canonicalQuery(request.rawUrl),
    canonicalHeaders,
    signedList,
    payloadHash,
  ].join("\n");
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(Buffer.from(canonicalRequest, "utf8"))].join("\n");
  let key: Buffer = hmac(`AWS4${expected.secretAccessKey}`, day);
  for (const part of [region, service, "aws4_request"]) key = hmac(key, part);
  const computed = Buffer.from(hmac(key, stringToSign).toString("hex"), "utf8");
  const given = Buffer.from(signature, "utf8");
  if (!timingSafeEqual(computed, given)) return { ok: false, reason: "the signature does not match the request" };
  return { ok: true, signedHeaders };
}

/** Every segment of the received (already encoded) path encoded once more, as AWS does for all services but S3. */
function canonicalUri(rawUrl: string): string {
  const path = rawUrl.split("?")[0] || "/";
  return path
    .split("/")
    .map((segment) => rfc3986(segment))
    .join("/");
}

function canonicalQuery(rawUrl: string): string {
  const query = rawUrl.split("?")[1];
  if (!query) return "";
  return [...new URLSearchParams(query)]
    .map(([name, value]) => [rfc3986(name), rfc3986(value)] as const)
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256Hex(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data, "utf8").digest();
}
