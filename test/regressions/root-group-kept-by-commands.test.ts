// A Tackle that is not root but runs with gid 0 (OpenShift's arbitrary uids do) cannot drop its group,
// so every command it started kept root's group: without bubblewrap, write access to whatever root's
// group may write on the host. The server and worker now refuse to run jobs that way, and warn (as
// `tackle doctor` does) when bubblewrap confines the group to what it binds read-only.
import { describe, expect, it } from "vitest";
import { rootGroupProblem, rootGroupRefusal } from "../../src/workspace/index.js";

describe("a Tackle with root's group", () => {
  it("is named, by its gid or a supplementary group", () => {
    expect(rootGroupProblem({ uid: 1000, gid: 0, groups: [0] })).toContain("uid 1000 with group 0");
    expect(rootGroupProblem({ uid: 1000, gid: 1000, groups: [1000, 0] })).toContain("group 0");
  });

  it("is not a problem for root (which drops commands to an identity with its own group) or other groups", () => {
    expect(rootGroupProblem({ uid: 0, gid: 0, groups: [0] })).toBeNull();
    expect(rootGroupProblem({ uid: 10001, gid: 10001, groups: [10001] })).toBeNull();
  });

  it("runs no jobs unsandboxed, and may with bubblewrap", () => {
    const refusal = rootGroupRefusal({ uid: 1000, gid: 0, groups: [] }, false);
    expect(refusal).toContain("unsandboxed");
    expect(refusal).toContain("a group of its own");
    expect(rootGroupRefusal({ uid: 1000, gid: 0, groups: [] }, true)).toBeNull();
    expect(rootGroupRefusal({ uid: 1000, gid: 1000, groups: [] }, false)).toBeNull();
  });
});
