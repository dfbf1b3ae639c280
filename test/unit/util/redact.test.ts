// The token formats the redactor masks, anywhere in a string (also glued to a word character), and
// the prose and code it must leave alone. Vectors are built by concatenation so that no file here
// looks like a live credential to a secret scanner.
import { describe, expect, it } from "vitest";
import { createRedactor, redactKnownTokens } from "../../../src/util/redact.js";

const alnum = (n: number, seed = "aB3dE6gH9k") => seed.repeat(Math.ceil(n / seed.length)).slice(0, n);
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

const ghs = `ghs_${alnum(36)}`;
const anthropic = `sk-ant-api03-${alnum(40)}_${alnum(20)}-AA`;
const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";

const masked: Array<[string, string, string]> = [
  // GitHub, also glued to word characters and after a JSON escape.
  ["github installation token", `token ${ghs}`, "token [REDACTED:github-token]"],
  ["github token glued to a letter", `X${ghs}`, "X[REDACTED:github-token]"],
  ["github token glued to an underscore", `_${ghs}_`, "_[REDACTED:github-token]_"],
  ["github token after a JSON-escaped newline", `"line\\n${ghs}"`, `"line\\n[REDACTED:github-token]"`],
  ["github personal token", `GH_TOKEN=ghp_${alnum(36)}`, "GH_TOKEN=[REDACTED:github-token]"],
  ["github fine-grained token", `github_pat_11ABCDEFG_${alnum(59)}`, "[REDACTED:github-token]"],
  // Anthropic
  ["anthropic key", `key=${anthropic}`, "key=[REDACTED:anthropic-key]"],
  ["anthropic key glued to a letter", `x${anthropic}`, "x[REDACTED:anthropic-key]"],
  // OpenAI
  ["openai project key", `OPENAI_API_KEY=sk-proj-${alnum(48)}_${alnum(20)}-${alnum(30)}`, "OPENAI_API_KEY=[REDACTED:openai-key]"],
  ["openai service account key", `sk-svcacct-${alnum(64)}`, "[REDACTED:openai-key]"],
  ["openai admin key", `sk-admin-${alnum(64)}`, "[REDACTED:openai-key]"],
  ["openai classic key", `"sk-${alnum(20)}T3BlbkFJ${alnum(20)}"`, `"[REDACTED:openai-key]"`],
  ["openai key glued to a word", `apikeysk-proj-${alnum(40)}`, "apikey[REDACTED:openai-key]"],
  // Slack
  ["slack bot token", `xoxb-123456789012-1234567890123-${alnum(24)}`, "[REDACTED:slack-token]"],
  ["slack user token", `token: xoxp-1234567890-1234567890-1234567890-${alnum(32)}`, "token: [REDACTED:slack-token]"],
  ["slack app token", `xapp-1-A0123456789-1234567890123-${alnum(64)}`, "[REDACTED:slack-token]"],
  ["slack refresh token", `xoxe-1-${alnum(40)}`, "[REDACTED:slack-token]"],
  ["slack configuration token", `xoxe.xoxp-1-${alnum(60)}`, "xoxe.[REDACTED:slack-token]"],
  ["slack token glued to a word", `Bearerxoxb-123456789012-${alnum(24)}`, "Bearer[REDACTED:slack-token]"],
  // Google
  ["google api key", `?key=AIzaSy${alnum(33)}&q=1`, "?key=[REDACTED:google-api-key]&q=1"],
  ["google api key with - and _", `AIza${alnum(10)}-_${alnum(23)}`, "[REDACTED:google-api-key]"],
  ["google api key glued", `_AIza${alnum(35)}`, "_[REDACTED:google-api-key]"],
  // GitLab
  ["gitlab personal token", `glpat-${alnum(20)}`, "[REDACTED:gitlab-token]"],
  ["gitlab deploy token", `gldt-${alnum(20)}`, "[REDACTED:gitlab-token]"],
  ["gitlab runner token", `glrt-${alnum(20)}`, "[REDACTED:gitlab-token]"],
  ["gitlab CI job token", `CI_JOB_TOKEN=glcbt-64_${alnum(20)}`, "CI_JOB_TOKEN=[REDACTED:gitlab-token]"],
  ["gitlab token glued", `Xglpat-${alnum(26)}`, "X[REDACTED:gitlab-token]"],
  // npm, AWS, JWT
  ["npm token", `//registry.npmjs.org/:_authToken=npm_${alnum(36)}`, "//registry.npmjs.org/:_authToken=[REDACTED:npm-token]"],
  ["aws access key", "AKIAIOSFODNN7EXAMPLE", "[REDACTED:aws-access-key]"],
  ["aws access key glued", "idAKIAIOSFODNN7EXAMPLE", "id[REDACTED:aws-access-key]"],
  [
    "aws secret in an assignment",
    "MY_aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "MY_aws_secret_access_key = [REDACTED:aws-secret-key]",
  ],
  ["jwt", `Bearer ${jwt}`, "Bearer [REDACTED:jwt]"],
  // The mask starts at the first eyJ of the header's run, and a run of eyJ that leads nowhere stays.
  ["jwt whose header's run holds an eyJ before it", `eyJabcde${jwt}`, "[REDACTED:jwt]"],
  ["jwt glued to a letter", `x${jwt}`, "x[REDACTED:jwt]"],
  ["jwt after a word that starts with eyJ", `eyJnotatoken ${jwt}`, "eyJnotatoken [REDACTED:jwt]"],
  ["jwt after a dotted eyJ run", `eyJab.${jwt}`, "eyJab.[REDACTED:jwt]"],
  // Authorization headers and Basic credentials
  ["authorization token header", "Authorization: token abcdef0123456789", "Authorization: token [REDACTED]"],
  ["authorization basic header", `Authorization: Basic ${b64("alice:s3cret-pass")}`, "Authorization: Basic [REDACTED]"],
  ["basic credential alone", `curl -H 'basic ${b64("user:password")}'`, "curl -H 'basic [REDACTED:basic-auth]'"],
  ["basic credential without padding", `Basic ${b64("deploy:abcd1234").replace(/=+$/, "")} next`, "Basic [REDACTED:basic-auth] next"],
  [
    "git extraheader with an x-access-token credential",
    `http.https://github.com/.extraheader=AUTHORIZATION: basic ${b64(`x-access-token:${alnum(40)}`)}`,
    "http.https://github.com/.extraheader=AUTHORIZATION: basic [REDACTED]",
  ],
  ["x-access-token in base64 without its header", `value ${b64(`x-access-token:${alnum(40)}`)} end`, "value [REDACTED:basic-auth] end"],
  ["x-access-token with an opaque token", `x-access-token:v1.${alnum(40)}`, "x-access-token:[REDACTED]"],
  ["x-access-token in a clone URL", `https://x-access-token:${ghs}@github.com/o/r.git`, "https://x-access-token:[REDACTED:github-token]@github.com/o/r.git"],
  ["URL password", "redis://:hunter2-but-longer@redis.internal:6379/0", "redis://:[REDACTED]@redis.internal:6379/0"],
  ["URL user and password", "https://bob:pa55word@example.com/repo.git", "https://bob:[REDACTED]@example.com/repo.git"],
];

const survivors: Array<[string, string]> = [
  ["sk- alone", "prefix sk- is OpenAI's; sk-ant- is Anthropic's"],
  ["words containing sk-", "risk-free task-list disk-cache-size --mask-file"],
  ["Basic in prose", "Basic authentication is disabled. Basic configuration: see below. BASIC programming, basic = true"],
  ["Basic followed by base64 that is no credential", `Basic ${b64("hello world")} and Basic ${b64("just some text")}`],
  ["Slack-like words", "xoxo-gossip-girl-forever xoxb- alone xapp-store"],
  ["prefixes alone", "AIza alone, glpat- alone, glpat-short, npm_ alone, ghs_ alone, AKIA is a prefix, eyJ alone"],
  ["a jwt's first two parts, or a third too short", "eyJabcde.eyJabcde and eyJabcde.eyJabcde.abcd, eyJeyJeyJ.eyJ"],
  ["identifiers", "npm_config_cache=/tmp laughs_and_cries through_the_night const ghost = 'gh_short'"],
  ["hashes and ids", "3f786850e387550fdab836ed7e6dc881de23001b 123e4567-e89b-12d3-a456-426614174000"],
  ["URLs without passwords", "https://github.com:443/o/r ssh://git@github.com/o/r.git git@github.com:o/r.git http://localhost:3000/x@y"],
  ["x-access-token as a word", "use x-access-token as the user name and the token as the password"],
  ["code reading a key", "const apiKey = process.env.OPENAI_API_KEY; headers.Authorization = `Bearer ${apiKey}`;"],
  ["markdown", "## Basic usage\n\n- [x] task-1: done\n- [ ] sk-learn upgrade"],
];

describe("redactKnownTokens", () => {
  it.each(masked)("masks %s", (_name, input, expected) => {
    expect(redactKnownTokens(input)).toBe(expected);
  });

  it.each(survivors)("leaves %s alone", (_name, text) => {
    expect(redactKnownTokens(text)).toBe(text);
  });

  it("is idempotent: masking masked text changes nothing", () => {
    for (const [, input] of masked) {
      const once = redactKnownTokens(input);
      expect(redactKnownTokens(once)).toBe(once);
    }
  });
});

describe("createRedactor with the job's secrets", () => {
  const secret = "opaque-job-secret-0123456789abcdef";
  const redact = createRedactor([secret, "short"]);

  it("masks the value, URL-encoded too, and ignores secrets too short to mask", () => {
    expect(redact(`the ${secret} leaked`)).toBe("the [REDACTED] leaked");
    expect(redact(`url?x=${encodeURIComponent(`${secret}/&`)}`)).toContain("[REDACTED]");
    expect(redact("a short word stays")).toBe("a short word stays");
  });

  it("masks the value glued to word characters", () => {
    expect(redact(`X${secret}Y`)).toBe("X[REDACTED]Y");
  });

  it.each([0, 1, 2, 3, 4, 5])("masks the value inside base64 after a %i-byte prefix", (prefixLength) => {
    const encoded = b64(`${"u:".padStart(prefixLength, "x").slice(0, prefixLength)}${secret}`);
    const result = redact(`config ${encoded} end`);
    expect(result).toMatch(/^config [A-Za-z0-9+/]{0,8}\[REDACTED\][A-Za-z0-9+/=]{0,8} end$/);
  });

  it("masks PEM private keys, also when cut off", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----";
    expect(redact(`before\n${pem}\nafter`)).toBe("before\n[REDACTED:private-key]\nafter");
    expect(redact("x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk")).toBe("x\n[REDACTED:private-key]");
    expect(redact("-----BEGIN PUBLIC KEY-----\nabc")).toBe("-----BEGIN PUBLIC KEY-----\nabc");
  });
});

describe("redaction cost", () => {
  it("stays linear on a long run of letters (a command's 50 MB of output is redacted before it is cut)", () => {
    const text = "a".repeat(5_000_000);
    const started = performance.now();
    expect(createRedactor(["opaque-job-secret-0123456789abcdef"])(text)).toBe(text);
    // About 100 ms here; a pattern that backtracks over the run would take hours.
    expect(performance.now() - started).toBeLessThan(4_000);
  });
});
