/**
 * "Never uid 0" has a twin: never root's group. Tackle as root drops commands to an identity with
 * its own group (setpriv), but a Tackle that is not root cannot change its group, and some platforms
 * (OpenShift's arbitrary uids) run it with gid 0. Its commands then keep root's group: in bubblewrap
 * only over what the sandbox binds, without it over every group-root-writable file on the host.
 */
export interface ProcessIdentity {
  uid: number;
  gid: number;
  groups: readonly number[];
}

export function currentIdentity(): ProcessIdentity {
  return { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1, groups: process.getgroups?.() ?? [] };
}

/** Why this Tackle's commands would keep root's group, or null (root drops it; other groups are fine). */
export function rootGroupProblem(identity: ProcessIdentity = currentIdentity()): string | null {
  if (identity.uid === 0) return null;
  if (identity.gid !== 0 && !identity.groups.includes(0)) return null;
  return `Tackle runs as uid ${identity.uid} with group 0 (root's group), which it cannot drop, so agent commands would run with root's group`;
}

/**
 * Whether jobs may run: with root's group and no sandbox, commands could write every file root's group
 * may write on the host, so they may not; with bubblewrap they only see what it binds read-only.
 */
export function rootGroupRefusal(identity: ProcessIdentity, sandboxed: boolean): string | null {
  const problem = rootGroupProblem(identity);
  if (problem === null || sandboxed) return null;
  return `${problem} on this host, unsandboxed (TACKLE_SANDBOX=off): run Tackle with a group of its own (e.g. \`user: "10001:10001"\`), or make bubblewrap work`;
}
