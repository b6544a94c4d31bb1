// A nightmare reviewer reads the artifact from disk while it runs, so its pass needs the file unwritten since its
// packet was sent, judged by ctime (SPEC §21.2): a link on the way to the file, swapped to other bytes and back, is a
// write too, whichever link of a chain it is.
import { lstatSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readArtifact } from "../../src/bus/artifact.js";
import { Layout } from "../../src/bus/layout.js";
import { tempRoot } from "../helpers/tmp.js";

/** Point `link` at `target` as `ln -sfn` does: a new link renamed over the old one. */
function repoint(link: string, target: string): void {
  symlinkSync(target, `${link}.new`);
  renameSync(`${link}.new`, link);
}

/** Swap the link to other bytes and back, until its own ctime is past `since` (the kernel's clock is coarse). */
function swappedAndPutBack(link: string, other: string, back: string, since: number): void {
  do {
    repoint(link, other);
    repoint(link, back);
  } while (lstatSync(link).ctimeMs <= since);
}

describe("readArtifact: when the artifact last changed (its ctime, changedAtMs)", () => {
  function project() {
    const root = tempRoot();
    const layout = new Layout(root);
    mkdirSync(path.join(root, "docs"), { recursive: true });
    writeFileSync(path.join(root, "docs", "good.md"), "# reviewed bytes\n");
    writeFileSync(path.join(root, "docs", "other.md"), "# bytes the reviewer was shown instead\n");
    return { root, layout, docs: path.join(root, "docs") };
  }
  const changedAt = (layout: Layout, rel: string) => {
    const a = readArtifact(layout, rel);
    if (!a.ok) throw new Error(a.detail);
    return a;
  };

  it("a link in a chain of links swapped and put back shows as a change, the bytes the same", () => {
    const { layout, docs } = project();
    symlinkSync("good.md", path.join(docs, "mid.md"));
    symlinkSync("mid.md", path.join(docs, "plan.md"));
    const before = changedAt(layout, "docs/plan.md");
    swappedAndPutBack(path.join(docs, "mid.md"), "other.md", "good.md", before.changedAtMs!);
    const after = changedAt(layout, "docs/plan.md");
    expect(after.rawSha).toBe(before.rawSha);
    expect(after.changedAtMs).toBeGreaterThan(before.changedAtMs!);
  });

  it("so does a linked directory on the way swapped and put back", () => {
    const { layout, docs } = project();
    mkdirSync(path.join(docs, "v1"));
    mkdirSync(path.join(docs, "v2"));
    writeFileSync(path.join(docs, "v1", "plan.md"), "# reviewed bytes\n");
    writeFileSync(path.join(docs, "v2", "plan.md"), "# bytes the reviewer was shown instead\n");
    symlinkSync("v1", path.join(docs, "current"));
    const before = changedAt(layout, "docs/current/plan.md");
    swappedAndPutBack(path.join(docs, "current"), "v2", "v1", before.changedAtMs!);
    const after = changedAt(layout, "docs/current/plan.md");
    expect(after.rawSha).toBe(before.rawSha);
    expect(after.changedAtMs).toBeGreaterThan(before.changedAtMs!);
  });

  it("a link above the project (its root given through one, as macOS's /tmp) counts for nothing: every spelling reads one time", () => {
    const { root, docs } = project();
    const linkedRoot = path.join(tempRoot(), "project");
    symlinkSync(root, linkedRoot);
    const real = changedAt(new Layout(root), "docs/good.md");
    // the root's link made (again) after the file's last write: a broker given --root through it reads no later time
    swappedAndPutBack(linkedRoot, docs, root, real.changedAtMs!);
    expect(changedAt(new Layout(linkedRoot), "docs/good.md").changedAtMs).toBe(real.changedAtMs);
    // a link inside the project still counts, however the root is spelled
    symlinkSync("good.md", path.join(docs, "plan.md"));
    const linked = changedAt(new Layout(linkedRoot), "docs/plan.md");
    swappedAndPutBack(path.join(docs, "plan.md"), "other.md", "good.md", linked.changedAtMs!);
    expect(changedAt(new Layout(linkedRoot), "docs/plan.md").changedAtMs).toBeGreaterThan(linked.changedAtMs!);
  });

  it("a file reached without links, or through one link, changes only when it or the link does", () => {
    const { layout, docs } = project();
    symlinkSync("good.md", path.join(docs, "plan.md"));
    const plain = changedAt(layout, "docs/good.md");
    const linked = changedAt(layout, "docs/plan.md");
    expect(changedAt(layout, "docs/good.md").changedAtMs).toBe(plain.changedAtMs);
    expect(changedAt(layout, "docs/plan.md").changedAtMs).toBe(linked.changedAtMs);
    swappedAndPutBack(path.join(docs, "plan.md"), "other.md", "good.md", linked.changedAtMs!);
    expect(changedAt(layout, "docs/plan.md").changedAtMs).toBeGreaterThan(linked.changedAtMs!);
  });
});
