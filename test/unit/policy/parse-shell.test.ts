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

  it("decodes ANSI-C quoting ($'...') as bash does", () => {
    expect(words("$'\\x72m' -rf /")).toEqual([["rm", "-rf", "/"]]);
    expect(words("$'\\162\\155' -rf /")).toEqual([["rm", "-rf", "/"]]);
    expect(words("$'\\u0072m' x")).toEqual([["rm", "x"]]);
    expect(words("echo $'a\\tb\\n' $'it\\'s' $\"x\"")).toEqual([["echo", "a\tb\n", "it's", "x"]]);
    // One word: bash would look for a program called "rm -rf /"; as a bash -c script it is a command line.
    expect(words("$'\\x72m -rf /'")).toEqual([["rm -rf /"]]);
    expect(words("bash -c $'\\x72m -rf /'")).toContainEqual(["rm", "-rf", "/"]);
  });

  it("parses a heredoc or here-string fed to a shell as a script", () => {
    expect(words("bash <<EOF\nrm -rf /\nEOF")).toEqual([["bash"], ["rm", "-rf", "/"]]);
    expect(words("sh -s -- arg <<'EOF'\nrm -rf ~\nEOF\necho done")).toContainEqual(["rm", "-rf", "~"]);
    expect(words("bash <<-EOF\n\trm -rf /\n\tEOF")).toContainEqual(["rm", "-rf", "/"]);
    expect(words("source /dev/stdin <<EOF\nreboot\nEOF")).toContainEqual(["reboot"]);
    expect(words("bash <<< 'rm -rf /'")).toEqual([["bash"], ["rm", "-rf", "/"]]);
    // A shell running a script file passes the heredoc to the script as data.
    expect(words("bash build.sh <<EOF\nrm -rf /\nEOF")).toEqual([["bash", "build.sh"]]);
    expect(words("cat <<< 'rm -rf /'")).toEqual([["cat"]]);
  });

  it("inspects the substitutions of an unquoted heredoc body, whatever reads it", () => {
    expect(words("cat <<EOF\nhello $(rm -rf /) and `reboot`\nEOF")).toEqual([["cat"], ["rm", "-rf", "/"], ["reboot"]]);
    expect(words("cat <<'EOF'\nhello $(rm -rf /)\nEOF")).toEqual([["cat"]]);
    expect(words("cat <<\\EOF\nhello $(rm -rf /)\nEOF")).toEqual([["cat"]]);
  });

  it("tells arithmetic expansion from command substitution, and inspects substitutions inside it", () => {
    expect(words("echo $((1 + 2)) $(( (3) * 4 ))")).toEqual([["echo", "0", "0"]]);
    expect(words("echo $(( $(rm -rf /) + 1 ))")).toEqual([
      ["echo", "0"],
      ["rm", "-rf", "/"],
    ]);
    expect(words('echo "$(( `reboot` ))"')).toContainEqual(["reboot"]);
    // Parentheses that do not close as `))` make a substitution holding a subshell.
    expect(words("echo $((rm -rf /) )")).toContainEqual(["rm", "-rf", "/"]);
  });
});

describe("commandName", () => {
  it("skips assignments, keywords and wrappers", () => {
    expect(commandName(["FOO=1", "sudo", "-u", "root", "/bin/rm", "-rf", "x"])).toEqual({ name: "rm", args: ["-rf", "x"], wrappers: ["sudo"] });
    expect(commandName(["timeout", "-s", "KILL", "10", "npm", "test"]).name).toBe("npm");
    expect(commandName(["env", "A=b", "nohup", "node", "x.js"]).name).toBe("node");
  });

  it("sees the command a coproc runs", () => {
    expect(commandName(["coproc", "rm", "-rf", "/"])).toEqual({ name: "rm", args: ["-rf", "/"], wrappers: [] });
    expect(parseShell("coproc worker { rm -rf /; }").map((simple) => commandName(simple.words).name)).toContain("rm");
  });
});
