import { describe, expect, it } from "vitest";
import { safeArtifactName } from "../../../src/util/safe-artifact-name.js";

describe("safeArtifactName", () => {
  it("keeps the base name in letters, digits and `._ -`", () => {
    expect(safeArtifactName("reports/run 1/summary.md")).toBe("summary.md");
    expect(safeArtifactName("..\\..\\evil<script>.html")).toBe("evil_script_.html");
    expect(safeArtifactName('naïve"name\r\n.txt')).toBe("na_ve_name__.txt");
  });

  it("never starts with a dot, even after spaces are trimmed", () => {
    expect(safeArtifactName(".bashrc")).toBe("_bashrc");
    expect(safeArtifactName(" .bashrc")).toBe("_bashrc");
    expect(safeArtifactName("  ...env  ")).toBe("_env");
  });

  it("falls back to `artifact` for a name with nothing left, and cuts at 120 characters", () => {
    expect(safeArtifactName("a/b/")).toBe("artifact");
    expect(safeArtifactName("   ")).toBe("artifact");
    expect(safeArtifactName(`${"n".repeat(200)}.txt`)).toHaveLength(120);
  });
});
