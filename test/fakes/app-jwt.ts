/**
 * GitHub App JWTs: the key pair GitHub issues to an App, and the checks GitHub applies to the
 * RS256 token an App signs with it before it may call `/app/...` endpoints.
 */
import { createPublicKey, createVerify, generateKeyPairSync, type KeyObject } from "node:crypto";

export interface AppKeyPair {
  /** PKCS#1 PEM ("BEGIN RSA PRIVATE KEY"), the format GitHub's "Generate a private key" downloads. */
  privateKeyPem: string;
  publicKey: KeyObject;
}

export function generateAppKey(): AppKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    publicKey,
  };
}

export type JwtCheck = { ok: true } | { ok: false; message: string };

/**
 * Verifies signature, issuer and time claims. Messages are GitHub's, since Octokit's auth-app
 * recognises some of them to correct clock skew.
 */
export function verifyAppJwt(token: string, publicKey: KeyObject | string, appId: number, nowSeconds = Math.floor(Date.now() / 1000)): JwtCheck {
  const undecodable: JwtCheck = { ok: false, message: "A JSON web token could not be decoded" };
  const parts = token.split(".");
  if (parts.length !== 3) return undecodable;
  const [headerPart = "", payloadPart = "", signaturePart = ""] = parts;
  let header: { alg?: unknown };
  let payload: { iat?: unknown; exp?: unknown; iss?: unknown };
  try {
    header = JSON.parse(Buffer.from(headerPart, "base64url").toString()) as typeof header;
    payload = JSON.parse(Buffer.from(payloadPart, "base64url").toString()) as typeof payload;
  } catch {
    return undecodable;
  }
  if (header.alg !== "RS256") return undecodable;
  const key = typeof publicKey === "string" ? createPublicKey(publicKey) : publicKey;
  const valid = createVerify("RSA-SHA256").update(`${headerPart}.${payloadPart}`).verify(key, Buffer.from(signaturePart, "base64url"));
  if (!valid) return undecodable;
  if (!/^\d+$/.test(String(payload.iss))) return { ok: false, message: "'Issuer' claim ('iss') must be an Integer" };
  if (String(payload.iss) !== String(appId)) return { ok: false, message: "Integration not found" };
  if (typeof payload.iat !== "number" || !Number.isInteger(payload.iat) || payload.iat > nowSeconds + 60) {
    return { ok: false, message: "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued" };
  }
  if (typeof payload.exp !== "number" || payload.exp <= nowSeconds) {
    return {
      ok: false,
      message: "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
    };
  }
  if (payload.exp - payload.iat > 600 + 60) {
    return { ok: false, message: "'Expiration time' claim ('exp') is too far in the future" };
  }
  return { ok: true };
}
