import { isIP } from "node:net";
import type { HostPattern } from "./parse-fetch-allow.js";

/** Where a URL points, as host patterns judge it. */
export interface Destination {
  /** The URL's host without brackets or a trailing dot: a domain name or an IP address. */
  host: string;
  port: number;
  /** The host is an IP address (no DNS lookup). */
  literal: boolean;
}

const STANDARD_PORTS = new Set([80, 443]);

/** A URL's host and port (80 or 443 by scheme when it names none). */
export function urlDestination(url: URL): Destination {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return { host, port, literal: isIP(host) !== 0 };
}

/**
 * Whether a destination matches one pattern: the same test for WebFetch's allow-lists and an operator
 * secret's `_HOSTS`. Every kind but `ip:port` stands for ports 80 and 443 only.
 */
export function matchesHostPattern(pattern: HostPattern, destination: Destination): boolean {
  const host = destination.literal ? canonicalAddress(destination.host) : destination.host;
  switch (pattern.kind) {
    case "address":
      return destination.literal && pattern.address === host && pattern.port === destination.port;
    case "any":
      return STANDARD_PORTS.has(destination.port);
    case "host":
      return pattern.host === host && STANDARD_PORTS.has(destination.port);
    case "subdomains":
      return !destination.literal && host.endsWith(`.${pattern.host}`) && STANDARD_PORTS.has(destination.port);
  }
}

/** Whether a port is one that patterns without a port stand for. */
export function isStandardPort(port: number): boolean {
  return STANDARD_PORTS.has(port);
}

/** An address as URLs and patterns write it (IPv6 compressed, in brackets), so `::1` and `0:0::1` compare equal. */
export function canonicalAddress(address: string): string {
  if (isIP(address) !== 6) return address;
  try {
    return new URL(`http://[${address}]/`).hostname;
  } catch {
    return address; // a zone id (fe80::1%eth0): link-local, never opened
  }
}
