import { isIPv4, isIPv6 } from "node:net";

/** A range that is not the public internet, with the words a refusal uses. */
interface Range {
  base: bigint;
  bits: number;
  what: string;
}

const v4 = (cidr: string, what: string): Range => {
  const [address, bits] = cidr.split("/") as [string, string];
  return { base: ipv4ToBigInt(address)!, bits: Number(bits), what };
};

const v6 = (cidr: string, what: string): Range => {
  const [address, bits] = cidr.split("/") as [string, string];
  return { base: ipv6ToBigInt(address)!, bits: Number(bits), what };
};

// IANA's IPv4 special-purpose registry, less the globally reachable entries.
const IPV4_RANGES: readonly Range[] = [
  v4("0.0.0.0/8", "a 'this network' address (0.0.0.0/8)"),
  v4("10.0.0.0/8", "a private address (10.0.0.0/8)"),
  v4("100.64.0.0/10", "a carrier-grade NAT address (100.64.0.0/10)"),
  v4("127.0.0.0/8", "a loopback address (127.0.0.0/8)"),
  v4("169.254.0.0/16", "a link-local address (169.254.0.0/16, cloud metadata included)"),
  v4("172.16.0.0/12", "a private address (172.16.0.0/12)"),
  v4("192.0.0.0/24", "a reserved address (192.0.0.0/24)"),
  v4("192.0.2.0/24", "a documentation address (192.0.2.0/24)"),
  v4("192.88.99.0/24", "a reserved 6to4 relay address (192.88.99.0/24)"),
  v4("192.168.0.0/16", "a private address (192.168.0.0/16)"),
  v4("198.18.0.0/15", "a benchmarking address (198.18.0.0/15)"),
  v4("198.51.100.0/24", "a documentation address (198.51.100.0/24)"),
  v4("203.0.113.0/24", "a documentation address (203.0.113.0/24)"),
  v4("224.0.0.0/4", "a multicast address (224.0.0.0/4)"),
  v4("255.255.255.255/32", "the broadcast address"),
  v4("240.0.0.0/4", "a reserved address (240.0.0.0/4)"),
];

// Checked after the forms that embed an IPv4 address; anything outside 2000::/3 is not public either.
const IPV6_RANGES: readonly Range[] = [
  v6("::/128", "the unspecified address (::)"),
  v6("::1/128", "a loopback address (::1)"),
  v6("64:ff9b:1::/48", "a local-use NAT64 address (64:ff9b:1::/48)"),
  v6("100::/64", "a discard-only address (100::/64)"),
  v6("2001::/23", "an IETF protocol address (2001::/23, Teredo included)"),
  v6("2001:db8::/32", "a documentation address (2001:db8::/32)"),
  v6("3fff::/20", "a documentation address (3fff::/20)"),
  v6("fc00::/7", "a private (unique local) address (fc00::/7)"),
  v6("fe80::/10", "a link-local address (fe80::/10)"),
  v6("fec0::/10", "a site-local address (fec0::/10)"),
  v6("ff00::/8", "a multicast address (ff00::/8)"),
];

// IPv6 forms that carry the IPv4 address the packets end up at; `shift`: where its 32 bits sit, from the right.
const EMBEDDING: readonly { range: Range; shift: bigint }[] = [
  { range: v6("::ffff:0:0/96", "an IPv4-mapped address"), shift: 0n },
  { range: v6("::/96", "an IPv4-compatible address"), shift: 0n },
  { range: v6("64:ff9b::/96", "a NAT64 address"), shift: 0n },
  { range: v6("2002::/16", "a 6to4 address"), shift: 80n },
];

const GLOBAL_UNICAST = v6("2000::/3", "");

/**
 * Why an address is not a public internet destination, or null when it is. IPv4-mapped,
 * IPv4-compatible, NAT64 and 6to4 IPv6 addresses are judged by the IPv4 address they embed; a string
 * that is not an IP address at all is refused too.
 */
export function classifyAddress(address: string): string | null {
  const bare = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (isIPv4(bare)) return classifyIpv4(ipv4ToBigInt(bare)!);
  if (!isIPv6(bare)) return `not an IP address (${JSON.stringify(address)})`;
  const value = ipv6ToBigInt(bare)!;
  for (const range of IPV6_RANGES.slice(0, 2)) if (inRange(value, range, 128)) return range.what;
  for (const { range, shift } of EMBEDDING) {
    if (!inRange(value, range, 128)) continue;
    const embedded = (value >> shift) & 0xffff_ffffn;
    const why = classifyIpv4(embedded);
    return why === null ? null : `${range.what} of ${formatIpv4(embedded)}, ${why}`;
  }
  for (const range of IPV6_RANGES) if (inRange(value, range, 128)) return range.what;
  return inRange(value, GLOBAL_UNICAST, 128) ? null : "a reserved address (outside 2000::/3)";
}

function classifyIpv4(value: bigint): string | null {
  return IPV4_RANGES.find((range) => inRange(value, range, 32))?.what ?? null;
}

function inRange(value: bigint, range: Range, width: number): boolean {
  const shift = BigInt(width - range.bits);
  return value >> shift === range.base >> shift;
}

function ipv4ToBigInt(address: string): bigint | null {
  const parts = address.split(".").map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255)) return null;
  return parts.reduce((sum, part) => (sum << 8n) | BigInt(part), 0n);
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}

/** Parses any IPv6 text form (`::` shorthand, a dotted IPv4 tail) into its 128-bit value. */
function ipv6ToBigInt(address: string): bigint | null {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted !== null) {
    const tail = ipv4ToBigInt(dotted[1]!);
    if (tail === null) return null;
    text = `${text.slice(0, dotted.index)}${(tail >> 16n).toString(16)}:${(tail & 0xffffn).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string | undefined) => (half === undefined || half === "" ? [] : half.split(":"));
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill("0"), ...tail];
  if (all.some((group) => !/^[0-9a-f]{1,4}$/.test(group))) return null;
  return all.reduce((sum, group) => (sum << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}
