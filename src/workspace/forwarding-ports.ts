import type { ExecPort, GitPort, SearchPort } from "../agent/ports.js";
import { TackleError } from "../errors/index.js";
import type { GuardedFs } from "./path-guard.js";

/** The ports the agent's tools work through, bound to one root. */
export interface RootPorts {
  fs: GuardedFs;
  exec: ExecPort;
  search: SearchPort;
  git: GitPort;
}

/**
 * Ports that pass every call on to whichever checkout `current` names at the time of the call. Tools
 * get copies of the session's context each turn, so the session's root cannot move by swapping the
 * ports in it; these stay the same objects while what they reach moves. `all` names every checkout's
 * exec port: a file tool pauses the processes of each (background commands keep running in the
 * checkout they were started in).
 */
export function forwardingPorts(current: () => RootPorts, all: () => readonly ExecPort[] = () => [current().exec]): RootPorts {
  const fs: GuardedFs = {
    get root() {
      return current().fs.root;
    },
    resolve: (filePath, intent) => current().fs.resolve(filePath, intent),
    relative: (absolutePath) => current().fs.relative(absolutePath),
    // Every checkout's processes paused, as for a file tool: a background command of another checkout may be what swaps the path.
    read: (filePath, options) => exec.pausing!(() => current().fs.read(filePath, options)),
    readFile: (filePath) => exec.pausing!(() => current().fs.readFile(filePath)),
    writeFile: (filePath, content) => current().fs.writeFile(filePath, content),
  };
  const exec: ExecPort = {
    get sandboxed() {
      return current().exec.sandboxed;
    },
    run: (command, options) => current().exec.run(command, options),
    async start(argv, options) {
      const target = current().exec;
      if (target.start === undefined) throw new TackleError("workspace", "this checkout cannot hold background processes");
      return target.start(argv, options);
    },
    // A process of any checkout's sandbox may be what races a file tool: all of them are paused.
    pausing<T>(task: () => Promise<T>): Promise<T> {
      const wrapped = all().reduce<() => Promise<T>>((inner, port) => (port.pausing ? () => port.pausing!(inner) : inner), task);
      return wrapped();
    },
  };
  const search: SearchPort = {
    get onHost() {
      return current().search.onHost;
    },
    ripgrep: (args, options) => current().search.ripgrep(args, options),
  };
  const git: GitPort = {
    currentBranch: () => current().git.currentBranch(),
    status: () => current().git.status(),
    diff: (options) => current().git.diff(options),
    log: (count) => current().git.log(count),
    commit: (message, files) => current().git.commit(message, files),
    listBranches: () => current().git.listBranches(),
    createBranch: (name) => current().git.createBranch(name),
    switchBranch: (name) => current().git.switchBranch(name),
    diffStat: (base) => current().git.diffStat(base),
  };
  return { fs, exec, search, git };
}
