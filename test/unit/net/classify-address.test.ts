import { describe, expect, it } from "vitest";
import { classifyAddress } from "../../../src/net/classify-address.js";

describe("classifyAddress", () => {
  it.each([
    ["8.8.8.8"],
    ["93.184.216.34"],
    ["1.1.1.1"],
    ["172.32.0.1"], // just past 172.16/12
    ["100.128.0.1"], // just past 100.64/10
    ["2606:4700::1111"],
    ["2001:4860:4860::8888"],
    ["::ffff:8.8.8.8"], // mapped public IPv4
    ["64:ff9b::808:808"], // NAT64 of 8.8.8.8
    ["2002:808:808::1"], // 6to4 of 8.8.8.8
  ])("%s is public", (address) => {
    expect(classifyAddress(address)).toBeNull();
  });

  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT"],
    ["0.0.0.0", "this network"],
    ["0.1.2.3", "this network"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.1", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["[::1]", "loopback"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fc00::1", "unique local"],
    ["fd12:3456::1", "unique local"],
    ["ff02::1", "multicast"],
    ["fec0::1", "site-local"],
    ["2001:db8::1", "documentation"],
    ["2001::1", "Teredo"],
    ["100::1", "discard-only"],
    ["4000::1", "outside 2000::/3"],
    ["::ffff:127.0.0.1", "IPv4-mapped address of 127.0.0.1, a loopback"],
    ["::ffff:7f00:1", "IPv4-mapped address of 127.0.0.1, a loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:a00:1", "of 10.0.0.1, a private"],
    ["::127.0.0.1", "IPv4-compatible address of 127.0.0.1"],
    ["64:ff9b::7f00:1", "NAT64 address of 127.0.0.1"],
    ["64:ff9b::a9fe:a9fe", "NAT64 address of 169.254.169.254"],
    ["64:ff9b:1::1", "local-use NAT64"],
    ["2002:7f00:1::", "6to4 address of 127.0.0.1"],
    ["2002:c0a8:101::1", "6to4 address of 192.168.1.1"],
  ])("%s is refused as %s", (address, what) => {
    expect(classifyAddress(address)).toContain(what);
  });

  it("refuses what is not an IP address at all", () => {
    expect(classifyAddress("localhost")).toContain("not an IP address");
    expect(classifyAddress("1.2.3")).toContain("not an IP address");
    expect(classifyAddress("1::2::3")).toContain("not an IP address");
  });
});
