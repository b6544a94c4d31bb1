// The review console in a real browser (Debian's chromium driven by playwright-core) over real workers: the table
// follows the files live, a review pasted in the page completes a gate (a refused one comes back as typed), an
// escalation decided in the page resumes one, hostile text stays text, a review being typed outlives a reload, and
// requests without the token, from another origin or for `../` are refused.
// The screenshots in the README are taken here, only when GUILD_SCREENSHOTS=1: a capture is no assertion, and a
// slow one on a loaded machine must not fail the suite or rewrite tracked files.
import { createServer, type Server } from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject, type Project, REPO, scriptedProvider, stopChild } from "../helpers/bus.js";
import { type Console, startUi } from "../helpers/console.js";
import { scaled } from "../helpers/machine.js";

const PLAN = "# Plan\n\n- lane A then lane B\n";
const WAIT = scaled(30_000);
const fenced = (o: object) => "```review_result.v1\n" + JSON.stringify(o) + "\n```\n";

let browser: Browser;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});

afterAll(async () => {
  await browser?.close();
});

/** A logged-in page: the printed URL sets the cookie and drops the token from the address. */
async function open(ui: Console, width = 1280): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  const page = await context.newPage();
  const r = await page.goto(ui.url);
  expect(r?.status()).toBe(200);
  expect(page.url()).toBe(`${ui.home}/`);
  await page.waitForSelector("body[data-live='1']", { timeout: WAIT }); // the event stream is open
  return page;
}

const cell = (page: Page, key: string, col: string) =>
  page.locator(`#gates tbody tr[data-key="${key}"] td[data-col="${col}"]`).textContent({ timeout: WAIT });

async function waitText(page: Page, selector: string, pattern: RegExp): Promise<void> {
  try {
    await page.waitForFunction(
      ([sel, src]) => [...document.querySelectorAll(sel!)].some((e) => new RegExp(src!).test(e.textContent ?? "")),
      [selector, pattern.source],
      { timeout: WAIT },
    );
  } catch (error) {
    const seen = await page
      .locator(selector)
      .allTextContents()
      .catch(() => []);
    throw new Error(`${selector} never matched ${pattern} at ${page.url()}; it holds ${JSON.stringify(seen)}`, { cause: error });
  }
}

/** The README's pictures, refreshed with `GUILD_SCREENSHOTS=1 npx vitest run test/it/ui.test.ts`. */
async function screenshot(page: Page, file: string, fullPage = false): Promise<void> {
  if (process.env.GUILD_SCREENSHOTS !== "1") return;
  await page.waitForLoadState("load");
  await page.screenshot({ path: path.join(REPO, "docs", file), fullPage, timeout: WAIT * 4 });
}

function manualReview(p: Project, run: string, extra: string[] = []) {
  const r = p.cli(["review", "docs/plan.md", "--gate", "G-plan", "--author", "claude", "--run-id", run, "--reviewer", "manual", ...extra]);
  expect(r.code, r.stderr).toBe(0);
}

describe("guild-bus ui in headless chromium (integration)", () => {
  it("the gate table updates live when a result lands (no reload, no polling)", async () => {
    const p = makeProject();
    p.settings({
      providers: {
        gpt: scriptedProvider(p.root, "gpt", "gpt-5", { default: { do: "issues", findings: ["No rollback plan for lane B"] } }),
        gemini: scriptedProvider(p.root, "gemini", "gemini-2.5-pro", { default: "satisfied" }),
      },
    });
    p.write("docs/plan.md", PLAN);
    ["broker", "verifier", "command", "manual"].forEach((k) => p.startWorker(k));
    for (const [run, reviewer] of [
      ["spec-2026-11-30", "gemini"],
      ["plan-2026-12-01", "gpt"],
    ]) {
      const r = p.cli([
        "review",
        "docs/plan.md",
        "--gate",
        "G-plan",
        "--author",
        "claude",
        "--run-id",
        run!,
        "--reviewer",
        reviewer!,
        "--cap",
        "1",
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    await p.waitState("spec-2026-11-30", "G-plan", ["done"]);
    await p.waitState("plan-2026-12-01", "G-plan", ["awaiting_decision"]);
    const ui = await startUi(p.root);
    const page = await open(ui);
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));

    // a new gate appears, then its result lands: both reach the open page as events
    manualReview(p, "ops-2026-12-01");
    await waitText(page, '#gates tr[data-key="ops-2026-12-01/G-plan"] td[data-col="waitingFor"]', /the reviewer/);
    const answer = fenced({ verdict: "satisfied", summary: "Rollback is covered.", findings: [], blocking_findings: [] });
    const r = p.cli(["respond", "ops-2026-12-01", "G-plan", "--reviewer-model", "gpt-5"], answer);
    expect(r.code, r.stderr).toBe(0);
    await waitText(page, '#gates tr[data-key="ops-2026-12-01/G-plan"] td[data-col="status"]', /^satisfied$/);
    expect(await cell(page, "ops-2026-12-01/G-plan", "independence")).toBe("strong");
    expect(await cell(page, "plan-2026-12-01/G-plan", "status")).toBe("cap_hit");
    expect(await cell(page, "plan-2026-12-01/G-plan", "round")).toBe("1/1");
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1); // never reloaded
    expect(requests.filter((u) => !u.endsWith("/events"))).toEqual([]); // the page asked for nothing: the server pushed
    // the filter narrows the rows as you type
    await page.fill("input[name=q]", "cap_hit");
    expect(await page.locator("#gates tbody tr:not([hidden])").count()).toBe(1);
    // as the server filters: a word typed shows the rows the same word sent shows (a row's independence, its round, its state)
    for (const [q, n] of [
      ["strong", 3],
      ["1/1", 2],
      ["awaiting_decision", 1],
      ["gpt-5 weak", 0],
    ] as const) {
      await page.fill("input[name=q]", q);
      const sent = await page.context().request.get(`${ui.home}/?q=${encodeURIComponent(q)}`);
      const keys = [...(await sent.text()).matchAll(/<tr\s+data-key="([^"]+)"/g)].map((m) => m[1]).sort();
      const shown = await page.locator("#gates tbody tr:not([hidden])").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-key")));
      expect(shown.sort(), q).toEqual(keys);
      expect(keys.length, q).toBe(n);
    }
    await page.fill("input[name=q]", "");
    await screenshot(page, "ui-gates.png");
  });

  it("a manual review pasted in the page completes the gate; a same-family model is refused with nothing written", async () => {
    const p = makeProject();
    p.write("docs/plan.md", PLAN);
    ["broker", "verifier", "manual"].forEach((k) => p.startWorker(k));
    manualReview(p, "m1");
    await p.waitFor("m1", "G-plan", (f) => f.includes("packet-1.md"), "packet-1");
    const ui = await startUi(p.root);
    const page = await open(ui);
    await page.goto(`${ui.home}/gate/m1/G-plan`);
    // who must act and how, in status's words: the person, the command, the packet to read
    await waitText(page, "dd.next-step", /waiting for a person \(the manual reviewer\) — run: guild-bus respond m1 G-plan .*packet-1\.md/);
    const answer = fenced({ verdict: "satisfied", summary: "Looks complete.", findings: [], blocking_findings: [] });
    await page.fill("#respond input[name=reviewer_model]", "claude-opus-4");
    await page.fill("#respond textarea[name=review]", answer);
    await page.click("#respond button[type=submit]");
    await waitText(page, ".notice.error", /author's family/);
    expect(p.files("m1", "G-plan")).not.toContain("result-1.json");
    // the refusal loses nothing: the review comes back as typed, only the model is corrected
    expect(await page.inputValue("#respond textarea[name=review]")).toBe(answer);
    expect(await page.inputValue("#respond input[name=reviewer_model]")).toBe("claude-opus-4");
    await page.fill("#respond input[name=reviewer_model]", "gpt-5");
    await page.click("#respond button[type=submit]");
    await waitText(page, ".notice.ok", /accepted: result-1\.json \(satisfied, reviewer gpt-5\)/);
    expect(await p.waitState("m1", "G-plan", ["done"])).toMatchObject({ status: "satisfied", independence: "strong" });
    expect(p.readJson("m1", "G-plan", "result-1.json")).toMatchObject({ reviewer_model: "gpt-5", normalized_from: "manual" });
    await waitText(page, "section.summary .status", /^satisfied$/); // the open page follows the gate
  });

  it("a review being typed outlives the page being told to reload (settings broken): held under a banner until cleared", async () => {
    const p = makeProject();
    p.write("docs/plan.md", PLAN);
    ["broker", "manual"].forEach((k) => p.startWorker(k));
    manualReview(p, "h1");
    await p.waitFor("h1", "G-plan", (f) => f.includes("packet-1.md"), "packet-1");
    const ui = await startUi(p.root);
    const page = await open(ui);
    await page.goto(`${ui.home}/gate/h1/G-plan`);
    await page.waitForSelector("body[data-live='1']", { timeout: WAIT });
    const typed = "## Findings\n\n- blocking: lane B has no rollback\n";
    await page.fill("#respond textarea[name=review]", typed);
    // the settings go wrong, then a gate appears: every open page is told to reload (into the problems)
    writeFileSync(path.join(p.root, ".guild", "settings.json"), "{ broken");
    const request = readFileSync(path.join(p.gateDir("h1", "G-plan"), "request.json"), "utf8").replaceAll('"h1"', '"h2"');
    p.write(".guild/runs/h2/review/G-plan/request.json", request);
    await page.waitForSelector("#outdated:not([hidden])", { timeout: WAIT });
    expect(await page.inputValue("#respond textarea[name=review]")).toBe(typed);
    expect(await page.getAttribute("body", "data-page")).toBe("gate");
    // cleared, nothing is lost by the reload it was holding
    await page.fill("#respond textarea[name=review]", "");
    await page.waitForSelector("body[data-page='settings']", { timeout: WAIT });
  });

  it("an escalation decided in the page resumes the gate with exactly the options it offers; resubmit runs the next round", async () => {
    const p = makeProject();
    p.settings({
      providers: {
        gpt: scriptedProvider(p.root, "gpt", "gpt-5", {
          sequence: [{ do: "issues", findings: ["Lane B has no rollback plan"] }, "satisfied"],
        }),
      },
    });
    p.write("docs/plan.md", PLAN);
    ["broker", "verifier", "command"].forEach((k) => p.startWorker(k));
    const r = p.cli([
      "review",
      "docs/plan.md",
      "--gate",
      "G-plan",
      "--author",
      "claude",
      "--run-id",
      "e1",
      "--reviewer",
      "gpt",
      "--cap",
      "1",
    ]);
    expect(r.code, r.stderr).toBe(0);
    await p.waitState("e1", "G-plan", ["awaiting_decision"]);
    const ui = await startUi(p.root);
    const page = await open(ui);
    await page.goto(`${ui.home}/gate/e1/G-plan`);
    await waitText(page, "dd.next-step", /waiting for a human decision — run: guild-bus decide e1 G-plan /);
    const offered = p.readJson<{ options: string[] }>("e1", "G-plan", "escalation-1.json").options;
    const shown = await page.locator("#decide input[name=choice]").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    expect(shown).toEqual(offered);
    // none is chosen for the person (force-pass is offered first): the form is not sent until one is, as the CLI needs one
    expect(await page.locator("#decide input[name=choice]:checked").count()).toBe(0);
    await page.click("#decide button[type=submit]");
    expect(await page.locator("#decide").evaluate((f) => (f as HTMLFormElement).checkValidity())).toBe(false);
    expect(p.files("e1", "G-plan").filter((f) => f.startsWith("decision-"))).toEqual([]);
    await page.check('#decide input[value="extend-cap"]');
    await page.fill("#decide input[name=extend_by]", "1");
    await page.fill("#decide textarea[name=note]", "one more round: the rollback plan");
    await page.click("#decide button[type=submit]");
    await waitText(page, ".notice.ok", /decision recorded: extend-cap \(round 1, cap_hit\)/);
    expect(p.readJson("e1", "G-plan", "decision-1.json")).toMatchObject({ choice: "extend-cap", extend_by: 1 });
    expect(await p.waitState("e1", "G-plan", ["awaiting_author"])).toMatchObject({ status: "extended" });
    // the author revises; resubmitting from the page issues round 2, which passes
    p.write("docs/plan.md", PLAN + "- rollback: lane B reverts to the last receipt\n");
    await page.goto(`${ui.home}/gate/e1/G-plan`);
    await page.click("#resubmit button[type=submit]");
    await waitText(page, ".notice.ok", /resubmitted after round 1/);
    expect(await p.waitState("e1", "G-plan", ["done"])).toMatchObject({ status: "satisfied", satisfied_at_round: 2 });
    await waitText(page, "section.summary .status", /^satisfied$/); // the open page follows the gate
    await waitText(page, "#round-2 pre.diff .add", /rollback: lane B reverts/);
    await waitText(page, "#round-1 .findings", /Lane B has no rollback plan/);
    await waitText(page, "#round-1 .decision", /extend-cap 1/);
    await screenshot(page, "ui-timeline.png", true);
  });

  it("at difficulty hard, a review uploaded in the page is accepted and its findings are contested once from the page", async () => {
    const p = makeProject();
    p.write("docs/plan.md", PLAN);
    ["broker", "verifier", "manual"].forEach((k) => p.startWorker(k));
    manualReview(p, "b1", ["--difficulty", "hard"]);
    await p.waitFor("b1", "G-plan", (f) => f.includes("packet-1.md"), "packet-1");
    const ui = await startUi(p.root);
    const page = await open(ui);
    await page.goto(`${ui.home}/gate/b1/G-plan`);
    const blocker = { severity: "blocking", title: "Lane B has no rollback plan" };
    const review = fenced({ verdict: "issues", summary: "One blocker.", findings: [blocker], blocking_findings: [blocker] });
    await page.fill("#respond input[name=reviewer_model]", "gpt-5");
    await page.setInputFiles("#respond input[name=upload]", { name: "review.md", mimeType: "text/markdown", buffer: Buffer.from(review) });
    await page.click("#respond button[type=submit]");
    await waitText(page, ".notice.ok", /accepted: result-1\.json \(issues, reviewer gpt-5\)/);
    await p.waitState("b1", "G-plan", ["awaiting_author"]);
    await waitText(page, "#rebut h3", /Contest the findings/); // the page follows the gate to the author's turn
    await page.fill("#rebut textarea[name=text]", "Lane B's rollback is section 3; the finding misread it.");
    await page.click("#rebut button[type=submit]");
    await waitText(page, ".notice.ok", /rebuttal recorded for round 1/);
    expect(readFileSync(path.join(p.gateDir("b1", "G-plan"), "rebuttal-1.md"), "utf8")).toMatch(/rollback is section 3/);
    await p.waitFor("b1", "G-plan", (f) => f.includes("packet-2.md"), "the ruling packet");
    expect(readFileSync(path.join(p.gateDir("b1", "G-plan"), "packet-2.md"), "utf8")).toMatch(/restart_reason: ruling/);
  });

  it("hostile artifact and reviewer text renders inert: no dialog, no request, no live link or element", async () => {
    const p = makeProject();
    const hostile = '<script>alert("s")</script>\n<img src="/x-img" onerror="alert(\'i\')">\n[click me](javascript:alert("j"))\n';
    p.write("docs/plan.md", PLAN + hostile);
    ["broker", "verifier"].forEach((k) => p.startWorker(k));
    manualReview(p, "h1");
    await p.waitFor("h1", "G-plan", (f) => f.includes("packet-1.md"), "packet-1");
    const blocker = { severity: "blocking", title: '<img src="/x-title" onerror="alert(1)">', detail: hostile, evidence: hostile };
    const issues = fenced({ verdict: "issues", summary: hostile, findings: [blocker], blocking_findings: [blocker] });
    expect(p.cli(["respond", "h1", "G-plan", "--reviewer-model", "gpt-5"], issues).code).toBe(0);
    await p.waitState("h1", "G-plan", ["awaiting_author"]);
    p.write("docs/plan.md", PLAN + hostile + '<a href="javascript:alert(2)">more</a><iframe src="/x-frame"></iframe>\n');
    expect(p.cli(["resubmit", "h1", "G-plan"]).code).toBe(0);
    await p.waitFor("h1", "G-plan", (f) => f.includes("packet-2.md"), "packet-2");

    const ui = await startUi(p.root);
    const page = await open(ui);
    const dialogs: string[] = [];
    const requests: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on("request", (r) => requests.push(new URL(r.url()).pathname.slice(new URL(ui.home).pathname.length)));
    await page.goto(`${ui.home}/gate/h1/G-plan`);
    await waitText(page, "#round-1 .findings", /<img src="\/x-title" onerror="alert\(1\)">/);
    await waitText(page, "#round-2 pre.diff .add", /<iframe src="\/x-frame"><\/iframe>/);
    await waitText(page, "#round-1 .md", /\[click me\]\(javascript:alert\("j"\)\)/);
    expect(dialogs).toEqual([]);
    expect(requests.filter((u) => !["/gate/h1/G-plan", "/assets/app.js", "/assets/app.css", "/events"].includes(u))).toEqual([]);
    expect(await page.locator("script").count()).toBe(1);
    expect(await page.locator("main img, main iframe, main [onerror], a[href^='javascript' i]").count()).toBe(0);
    const links = await page.locator("main a").evaluateAll((els) => els.map((e) => (e as HTMLAnchorElement).getAttribute("href")));
    expect(links.every((h) => h !== null && h.startsWith(`${new URL(ui.home).pathname}/`))).toBe(true);
  });

  it("refuses requests without the token, from another origin, with a wrong CSRF token, or for ../ paths", async () => {
    const p = makeProject();
    p.write("docs/plan.md", PLAN);
    p.startWorker("broker");
    manualReview(p, "s1");
    await p.waitFor("s1", "G-plan", (f) => f.includes("packet-1.md"), "packet-1");
    const ui = await startUi(p.root);
    // no token: nothing but the refusal, for the page, the API of events and the assets alike
    const stranger = await (await browser.newContext()).newPage();
    for (const where of ["/", "/gate/s1/G-plan", "/events", "/assets/app.js"]) {
      const r = await stranger.goto(ui.home + where);
      expect(r?.status(), where).toBe(401);
    }
    expect((await stranger.goto(`${ui.home}/?token=wrong`))?.status()).toBe(403);

    // a page on another port of 127.0.0.1 (the same site: a Strict cookie goes along) posting a form at the console:
    // the origin is checked; and the console's cookie, scoped to its random base path, is never sent to that server
    const page = await open(ui);
    const cookies: string[] = [];
    const evil: Server = createServer((req, res) => {
      cookies.push(req.headers.cookie ?? "");
      res.setHeader("Content-Type", "text/html");
      res.end(
        `<form id="f" method="post" action="${ui.home}/gate/s1/G-plan/decide">` +
          '<input name="choice" value="force-pass"><input name="csrf" value="guess"><button>go</button></form>',
      );
    });
    await new Promise<void>((r) => evil.listen(0, "127.0.0.1", r));
    try {
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const [response] = await Promise.all([page.waitForNavigation(), page.click("button")]);
      expect(response?.status()).toBe(403);
      expect(cookies.length).toBeGreaterThan(0);
      expect(cookies.filter((c) => c.includes(ui.token))).toEqual([]);
    } finally {
      evil.close();
    }
    // the logged-in browser itself, with a foreign Origin or without the form's CSRF token
    const api = page.context().request;
    const post = (headers: Record<string, string>, csrf: string) =>
      api.post(`${ui.home}/gate/s1/G-plan/resubmit`, { headers, form: { csrf }, maxRedirects: 0 });
    const csrf = await (async () => {
      await page.goto(`${ui.home}/gate/s1/G-plan`);
      return page.locator("input[name=csrf]").first().getAttribute("value");
    })();
    expect(csrf).toBeTruthy();
    expect((await post({ Origin: "http://evil.example" }, csrf!)).status()).toBe(403);
    expect((await post({}, csrf!)).status()).toBe(403); // no Origin at all
    expect((await post({ Origin: ui.origin }, "wrong")).status()).toBe(403);
    expect(p.files("s1", "G-plan").some((f) => /^(decision|resubmit)-/.test(f))).toBe(false);
    // paths: every `..` form is refused before any file is read
    for (const where of [
      "/gate/..%2F..%2F..%2Fetc/passwd",
      "/gate/s1/..%2F..%2Fsettings.json",
      "/assets/..%2F..%2F..%2Fpackage.json",
      "/gate/../../etc/passwd",
    ]) {
      const r = await api.get(ui.home + where, { maxRedirects: 0 });
      expect([400, 404], where).toContain(r.status());
      expect(await r.text(), where).not.toMatch(/root:|"name": "guild-bus"|"providers"/);
    }
    // a Host that is not this server (DNS rebinding) is refused even with the cookie
    const rebound = await api.get(`${ui.home}/`, { headers: { Host: "evil.example:80" } });
    expect(rebound.status()).toBe(421);
  });

  it("a page open while the console restarts on its port says it is disconnected, and keeps a review typed into it", async () => {
    const p = makeProject();
    p.write("docs/plan.md", PLAN);
    p.startWorker("broker");
    manualReview(p, "r1");
    await p.waitFor("r1", "G-plan", (f) => f.includes("packet-1.md"), "packet-1");
    const ui = await startUi(p.root);
    const page = await open(ui);
    await page.goto(`${ui.home}/gate/r1/G-plan`);
    await page.waitForSelector("body[data-live='1']", { timeout: WAIT });
    await stopChild(ui.child);
    const again = await startUi(p.root, ["--port", new URL(ui.origin).port]);
    expect(again.home).not.toBe(ui.home); // a new token and path: the old page's stream is refused, and not retried
    await waitText(page, "#live", /^disconnected: open the URL the console printed at its start$/);
    expect(await page.getAttribute("body", "data-live")).toBe("gone");
    // submitted, the form would meet a console that does not know this page: it stays, with what was typed
    const typed = "## Findings\n\n- blocking: lane B has no rollback\n";
    await page.fill("#respond input[name=reviewer_model]", "gpt-5");
    await page.fill("#respond textarea[name=review]", typed);
    await page.click("#respond button[type=submit]");
    await waitText(page, "#respond .notice.error", /^Not sent: this page lost its console/);
    expect(await page.inputValue("#respond textarea[name=review]")).toBe(typed);
    expect(p.files("r1", "G-plan")).not.toContain("result-1.json");
  });

  it("--read-only shows no forms and refuses every action", async () => {
    const p = makeProject();
    p.write("docs/plan.md", PLAN);
    p.startWorker("broker");
    manualReview(p, "ro");
    await p.waitFor("ro", "G-plan", (f) => f.includes("packet-1.md"), "packet-1");
    const ui = await startUi(p.root, ["--read-only"]);
    const page = await open(ui);
    await page.goto(`${ui.home}/gate/ro/G-plan`);
    expect(await page.locator("form.act").count()).toBe(0);
    await waitText(page, "section.actions", /read-only/);
    const r = await page.context().request.post(`${ui.home}/gate/ro/G-plan/respond`, {
      headers: { Origin: ui.origin },
      multipart: { csrf: "x", reviewer_model: "gpt-5", review: "## SATISFIED\n" },
      maxRedirects: 0,
    });
    expect(r.status()).toBe(403);
    expect(await r.text()).toMatch(/read-only/);
    expect(p.files("ro", "G-plan")).not.toContain("result-1.json");
    expect(readFileSync(path.join(p.gateDir("ro", "G-plan"), "packet-1.md"), "utf8")).toMatch(/reviewer_adapter: manual/);
  });
});
