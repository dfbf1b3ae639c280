import { describe, expect, it } from "vitest";
import { commandName, parseShell } from "../../../src/agent/policy/parse-shell.js";

const words = (command: string) => parseShell(command).map((simple) => simple.words);

describe("parseShell", () => {
  it("splits on operators and removes quotes", () => {
    expect(words(`echo "a b" 'c;d' && ls -la | wc -l; true || false & sleep 1`)).toEqual([
      ["echo", "a b", "c;d"],
      ["ls", "-la"],
      ["wc", "-l"],
      ["true"],
      ["false"],
      ["sleep", "1"],
    ]);
    expect(parseShell("a | b && c").map((simple) => simple.next)).toEqual(["|", "&&", ""]);
  });

  it("keeps quoted text that looks like a command inside its word", () => {
    expect(words(`git commit -m "fix(parser): reboot; shutdown"`)).toEqual([["git", "commit", "-m", "fix(parser): reboot; shutdown"]]);
  });

  it("records redirections, skipping descriptor duplication", () => {
    const [simple] = parseShell("make build > out.log 2>&1 >> all.log 2>/dev/null &> both.txt < in.txt");
    expect(simple?.words).toEqual(["make", "build"]);
    expect(simple?.redirects).toEqual([
      { op: ">", target: "out.log" },
      { op: ">>", target: "all.log" },
      { op: ">", target: "/dev/null" },
      { op: "&>", target: "both.txt" },
    ]);
  });

  it("unpacks command substitution, backticks, subshells and bash -c", () => {
    const all = words(`echo "$(rm -rf x)" \`whoami\` (cd a && make) ; bash -c 'sudo ls; echo hi'`);
    expect(all).toContainEqual(["rm", "-rf", "x"]);
    expect(all).toContainEqual(["whoami"]);
    expect(all).toContainEqual(["cd", "a"]);
    expect(all).toContainEqual(["make"]);
    expect(all).toContainEqual(["sudo", "ls"]);
    expect(all).toContainEqual(["echo", "hi"]);
  });

  it("skips heredoc bodies", () => {
    const all = words("cat > notes.md <<'EOF'\nreboot\nrm -rf /\nEOF\necho done");
    expect(all).toEqual([["cat"], ["echo", "done"]]);
    expect(parseShell("cat > notes.md <<'EOF'\nx\nEOF")[0]?.redirects).toEqual([{ op: ">", target: "notes.md" }]);
  });

  it("ignores comments", () => {
    expect(words("ls # rm -rf /")).toEqual([["ls"]]);
  });
});

describe("commandName", () => {
  it("skips assignments, keywords and wrappers", () => {
    expect(commandName(["FOO=1", "sudo", "-u", "root", "/bin/rm", "-rf", "x"])).toEqual({ name: "rm", args: ["-rf", "x"], wrappers: ["sudo"] });
    expect(commandName(["timeout", "-s", "KILL", "10", "npm", "test"]).name).toBe("npm");
    expect(commandName(["env", "A=b", "nohup", "node", "x.js"]).name).toBe("node");
  });
});
