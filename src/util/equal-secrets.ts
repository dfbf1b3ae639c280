import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether a secret someone sent equals the one expected, in constant time: fixed-length digests are
 * compared, so neither the content nor the length leaks through timing.
 */
export function equalSecrets(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
