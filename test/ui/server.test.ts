// The console's HTTP surface in-process: what a request must carry (Host, token, Origin, CSRF), which paths exist,
// and the event stream's replay. The browser-level tests are test/it/ui.test.ts.
import { request } from "node:http";
import { hostname, networkInterfaces } from "node:os";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { loadContext } from "../../src/bus/context.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { decideEscalation, respond, resubmit } from "../../src/commands/author.js";
import { addressesAt, type RunningConsole, startConsole } from "../../src/ui/server.js";
import { scaled } from "../helpers/machine.js";
import { tempRoot } from "../helpers/tmp.js";

const running: RunningConsole[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.close()));
});

async function project(readOnly = false, cap?: number) {
  const root = tempRoot();
  mkdirSync(path.join(root, "docs"));
  writeFileSync(path.join(root, "docs", "plan.md"), "# Plan\n");
  writeFileSync(path.join(root, "secret.txt"), "TOP-SECRET\n");
  const layout = new Layout(root);
  expect(
    (await requestReview(layout, { artifact: "docs/plan.md", gate: "G-plan", author: "claude", reviewer: "manual", runId: "r1", cap })).ok,
  ).toBe(true);
  const ui = await startConsole({ root, host: "127.0.0.1", port: 0, readOnly, poll: false });
  running.push(ui);
  const token = new URL(ui.url).searchParams.get("token")!;
  const cookie = `guild_bus_ui_${ui.port}=${token}`;
  return { root, ui, token, cookie, origin: `http://127.0.0.1:${ui.port}` };
}

/** A raw request: the path is sent after the console's base as given (no `..` folding), headers exactly as given. */
function raw(
  ui: { port: number; base: string; at?: string },
  method: string,
  p: string,
  headers: Record<string, string>,
  body?: string | Buffer,
) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    const req = request(
      { host: ui.at ?? "127.0.0.1", port: ui.port, method, path: ui.base + p, headers, setHost: !("Host" in headers) },
      (res) => {
        let text = "";
        res.on("data", (b: Buffer) => (text += b));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("guild-bus ui: the HTTP surface", () => {
  it("on a port in use, says so and starts nothing (no watcher left to keep the process alive)", async () => {
    const { ui, root } = await project();
    await expect(startConsole({ root, host: "127.0.0.1", port: ui.port, readOnly: true, poll: false })).rejects.toThrow(
      `cannot listen on 127.0.0.1:${ui.port}: the port is in use; choose another --port (0: any free one)`,
    );
  });

  it("binds 127.0.0.1 and answers only with the token; ?token= becomes an HttpOnly SameSite=Strict cookie", async () => {
    const { ui, token, cookie } = await project();
    expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]{16}\/\?token=[\w-]{32}$/);
    expect((await raw(ui, "GET", "/", {})).status).toBe(401);
    expect((await raw(ui, "GET", "/?token=nope", {})).status).toBe(403);
    const login = await raw(ui, "GET", `/?token=${token}`, {});
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe(`${ui.base}/`);
    expect(String(login.headers["set-cookie"])).toMatch(
      new RegExp(`^guild_bus_ui_${ui.port}=${token}; Path=${ui.base}; HttpOnly; SameSite=Strict`),
    );
    const page = await raw(ui, "GET", "/", { Cookie: cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-key="r1/G-plan"');
    expect(page.headers["content-security-policy"]).toMatch(/default-src 'self'; script-src 'self'/);
    expect(page.text.match(/<script[^>]*>/g)).toEqual([`<script src="${ui.base}/assets/app.js" defer>`]); // no inline script
    expect((await raw(ui, "GET", "/", { Cookie: cookie, Host: `evil.example:${ui.port}` })).status).toBe(421);
  });

  it("lives under a random path its cookie is scoped to: another port's server on 127.0.0.1 is never sent the token", async () => {
    const { ui, token, cookie } = await project();
    // cookies ignore ports: a cookie of Path=/ would reach every server on 127.0.0.1 the browser visits
    const other = await startConsole({ root: tempRoot(), host: "127.0.0.1", port: 0, readOnly: true, poll: false });
    running.push(other);
    expect(other.base).not.toBe(ui.base);
    const outside = { port: ui.port, base: "" };
    for (const p of ["/", "/gate/r1/G-plan", "/events", "/assets/app.js", `/?token=${token}`, `//evil.example/x?token=${token}`]) {
      const r = await raw(outside, "GET", p, { Cookie: cookie });
      expect(r.status, p).toBe(404);
      expect(r.text, p).toBe("not found: open the URL this console printed when it started (each start prints a new one)\n");
      expect(r.headers["set-cookie"], p).toBeUndefined();
    }
    // every address the page names is under the base: the cookie goes along, and nowhere else
    const page = (await raw(ui, "GET", "/", { Cookie: cookie })).text;
    const addresses = [...page.matchAll(/(?:href|src|action)="([^"]*)"/g)].map((m) => m[1]!);
    expect(addresses.length).toBeGreaterThan(3);
    for (const a of addresses) expect(a.startsWith(`${ui.base}/`), a).toBe(true);
    expect(page).toContain(`data-base="${ui.base}"`); // the script builds its addresses from it
  });

  it("bound to every address, answers to this machine's names and addresses, and still refuses any other Host", async () => {
    const root = tempRoot();
    const ui = await startConsole({ root, host: "0.0.0.0", port: 0, readOnly: true, poll: false });
    running.push(ui);
    expect(ui.url.startsWith(`http://${hostname()}:${ui.port}${ui.base}/?token=`)).toBe(true);
    const cookie = `guild_bus_ui_${ui.port}=${new URL(ui.url).searchParams.get("token")}`;
    const address = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .find((i) => i.family === "IPv4")!.address;
    for (const name of [hostname(), address, "127.0.0.1", "localhost"])
      expect((await raw(ui, "GET", "/", { Cookie: cookie, Host: `${name}:${ui.port}` })).status, name).toBe(200);
    expect((await raw(ui, "GET", "/", { Cookie: cookie, Host: `evil.example:${ui.port}` })).status).toBe(421);
  });

  it("bound to loopback in another spelling, answers the Host a browser sends for the address it prints", async () => {
    const root = tempRoot();
    for (const host of ["0:0:0:0:0:0:0:1", "::ffff:127.0.0.2"]) {
      const ui = await startConsole({ root, host, port: 0, readOnly: true, poll: false });
      running.push(ui);
      // a browser (and fetch) sends the address as URLs spell it: [::1], [::ffff:7f00:2]
      const sent = new URL(ui.url).host;
      const cookie = `guild_bus_ui_${ui.port}=${new URL(ui.url).searchParams.get("token")}`;
      expect((await raw({ ...ui, at: host }, "GET", "/", { Cookie: cookie, Host: sent })).status, `${host} as ${sent}`).toBe(200);
    }
  });

  it("on port 80, answers the Host and Origin a browser sends there (it leaves the default port out)", () => {
    expect(addressesAt(["127.0.0.1", "[::1]"], 80)).toEqual({
      hosts: ["127.0.0.1", "127.0.0.1:80", "[::1]", "[::1]:80"],
      origins: ["http://127.0.0.1", "http://127.0.0.1:80", "http://[::1]", "http://[::1]:80"],
    });
    expect(addressesAt(["127.0.0.1"], 8080)).toEqual({ hosts: ["127.0.0.1:8080"], origins: ["http://127.0.0.1:8080"] });
  });

  it("refuses a POST from another origin, without an Origin, or without the form's CSRF token; writes nothing", async () => {
    const { root, ui, cookie, origin } = await project();
    const post = (headers: Record<string, string>, body: string) =>
      raw(ui, "POST", "/gate/r1/G-plan/decide", { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded", ...headers }, body);
    expect((await post({ Origin: "http://evil.example" }, "choice=force-pass&csrf=x")).status).toBe(403);
    expect((await post({}, "choice=force-pass&csrf=x")).status).toBe(403);
    const wrong = await post({ Origin: origin }, "choice=force-pass&csrf=x");
    expect(wrong.status).toBe(403);
    expect(wrong.text).toMatch(/CSRF/);
    expect((await raw(ui, "POST", "/gate/r1/G-plan/decide", { Origin: origin }, "")).status).toBe(401);
    expect(readdirSync(path.join(root, ".guild", "runs", "r1", "review", "G-plan"))).toEqual(["request.json"]);
  });

  it("a malformed form body is refused with 400 and writes nothing; the console keeps serving", async () => {
    const { root, ui, cookie, origin } = await project();
    const post = (contentType: string, body: string) =>
      raw(ui, "POST", "/gate/r1/G-plan/respond", { Cookie: cookie, Origin: origin, "Content-Type": contentType }, body);
    for (const [type, body] of [
      ["multipart/form-data", "csrf=x"], // no boundary
      ["multipart/form-data; boundary=XX", '--XX\r\nContent-Disposition: form-data; name="review"\r\n\r\ncut short'],
    ]) {
      const r = await post(type!, body!);
      expect(r.status, type).toBe(400);
      expect(r.text).toMatch(/cannot be read/);
    }
    expect(readdirSync(path.join(root, ".guild", "runs", "r1", "review", "G-plan"))).toEqual(["request.json"]);
    expect((await raw(ui, "GET", "/", { Cookie: cookie })).status).toBe(200);
  });

  it("an uploaded review is decoded as the CLI decodes --file: a BOM is no part of it; bytes not UTF-8 are refused", async () => {
    const { root, ui, cookie, origin } = await project();
    await stepGate(loadContext(new Layout(root)), "r1", "G-plan"); // round 1 for the manual reviewer
    const dir = path.join(root, ".guild", "runs", "r1", "review", "G-plan");
    const csrf = /name="csrf" value="([^"]+)"/.exec((await raw(ui, "GET", "/gate/r1/G-plan", { Cookie: cookie })).text)![1]!;
    const upload = async (bytes: Buffer) => {
      const field = (name: string, value: string) => `--XX\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      const head = field("reviewer_model", "gpt-5") + field("round", "1") + field("csrf", csrf);
      const file =
        '--XX\r\nContent-Disposition: form-data; name="upload"; filename="review.json"\r\nContent-Type: application/json\r\n\r\n';
      const body = Buffer.concat([Buffer.from(head + file), bytes, Buffer.from("\r\n--XX--\r\n")]);
      const headers = { Cookie: cookie, Origin: origin, "Content-Type": "multipart/form-data; boundary=XX" };
      const posted = await raw(ui, "POST", "/gate/r1/G-plan/respond", headers, body);
      expect(posted.status).toBe(303);
      const page = await raw(ui, "GET", String(posted.headers.location).slice(ui.base.length), { Cookie: cookie });
      return /class="notice (?:ok|error)" role="status">([^<]*)</.exec(page.text)?.[1];
    };
    expect(await upload(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))).toBe("the upload: not valid UTF-8 text");
    expect(readdirSync(dir).filter((f) => f.startsWith("result-"))).toEqual([]);
    const answer = JSON.stringify({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "no rollback" }] });
    expect(await upload(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(answer)]))).toMatch(
      /^accepted: result-1\.json \(issues/,
    );
  });

  it("serves no path outside .guild/ and its assets: every ../ form is refused", async () => {
    const { ui, cookie } = await project();
    for (const p of [
      "/gate/../../secret.txt",
      "/gate/..%2F..%2F..%2Fsecret.txt/G-plan",
      "/gate/r1/..%2F..%2F..%2F..%2Fsecret.txt",
      "/gate/%2e%2e/G-plan",
      "/assets/..%2F..%2F..%2F..%2Fsecret.txt",
      "/assets/../../../package.json",
      "/../secret.txt",
      "/secret.txt",
    ]) {
      const r = await raw(ui, "GET", p, { Cookie: cookie });
      expect([400, 404], p).toContain(r.status);
      expect(r.text, p).not.toMatch(/TOP-SECRET|"name": "guild-bus"/);
    }
    expect((await raw(ui, "GET", "/gate/r2/G-plan", { Cookie: cookie })).status).toBe(404);
    expect((await raw(ui, "GET", "/assets/app.js", { Cookie: cookie })).headers["content-type"]).toMatch(/^text\/javascript/);
  });

  it("shows an action's notice from its own record, by the id it issued; never text from the URL", async () => {
    const { root, ui, cookie, origin } = await project();
    await stepGate(loadContext(new Layout(root)), "r1", "G-plan"); // a packet for the manual reviewer: a form to answer it
    const gatePage = (query: string) => raw(ui, "GET", `/gate/r1/G-plan${query}`, { Cookie: cookie });
    // a link from any page of the same site: neither the old ?done=/?error= nor an unknown id shows a notice
    for (const query of ["?done=decision%20recorded%3A%20force-pass", "?error=x", "?notice=decision%20recorded", "?notice=toString"])
      expect((await gatePage(query)).text, query).not.toMatch(/class="notice (ok|error)"|decision recorded/);
    const csrf = /name="csrf" value="([^"]+)"/.exec((await gatePage("")).text)![1]!;
    const form = { Cookie: cookie, Origin: origin, "Content-Type": "application/x-www-form-urlencoded" };
    const posted = await raw(ui, "POST", "/gate/r1/G-plan/decide", form, `choice=nonsense&round=1&csrf=${csrf}`);
    expect(posted.status).toBe(303);
    const to = String(posted.headers.location);
    expect(to).toMatch(new RegExp(`^${ui.base}/gate/r1/G-plan\\?notice=[\\w-]{22}$`));
    // the page reloads itself when its gate moves: the notice stays
    for (let i = 0; i < 2; i++)
      expect((await gatePage(to.slice(to.indexOf("?")))).text).toContain(
        '<p class="notice error" role="status">choose one of the options offered</p>',
      );
  });

  it("gives a refused form's text back: in the same form while its round waits, else shown to copy; never in another round's", async () => {
    const { root, ui, cookie, origin } = await project();
    const layout = new Layout(root);
    await stepGate(loadContext(layout), "r1", "G-plan"); // round 1 for the manual reviewer
    const gatePage = (to = "/gate/r1/G-plan") => raw(ui, "GET", to, { Cookie: cookie }).then((r) => r.text);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await gatePage())![1]!;
    const form = { Cookie: cookie, Origin: origin, "Content-Type": "application/x-www-form-urlencoded" };
    // a browser sends CRLF; the text begins with a blank line (a textarea drops one newline after its tag)
    const review = "\r\n## Findings\r\n\r\n- keep <b>this</b> & that\r\n";
    const body = `reviewer_model=claude-opus-4&review=${encodeURIComponent(review)}&round=1&csrf=${csrf}`;
    const posted = await raw(ui, "POST", "/gate/r1/G-plan/respond", form, body);
    expect(posted.status).toBe(303);
    const refused = await gatePage(String(posted.headers.location).slice(ui.base.length));
    expect(refused).toMatch(/class="notice error" role="status">[^<]*the author&#39;s family/);
    const shown = "\n## Findings\n\n- keep &lt;b&gt;this&lt;/b&gt; &amp; that\n";
    expect(refused).toContain(`<textarea name="review" rows="10" placeholder="paste the review here">\n${shown}</textarea>`);
    expect(refused).toMatch(/name="reviewer_model"[^>]*value="claude-opus-4"/);
    expect(refused).not.toContain('class="draft"');
    // a page without that notice (another tab, a reload after acting) starts empty
    expect(await gatePage()).toContain('placeholder="paste the review here">\n</textarea>');
    // the gate moves on (round 1 answered elsewhere): the text is shown to copy, not put into round 2's form
    const answered = await respond(loadContext(layout), "r1", "G-plan", {
      read: async () =>
        "```review_result.v1\n" +
        JSON.stringify({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a" }] }) +
        "\n```\n",
      reviewerModel: "gpt-5",
      round: 1,
    });
    expect(answered).toMatchObject({ ok: true });
    await verifyGate(loadContext(layout), "r1", "G-plan", () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), "r1", "G-plan");
    const moved = await gatePage(String(posted.headers.location).slice(ui.base.length));
    expect(moved).toMatch(/<details class="draft" open>\s*<summary>What you submitted for round 1 \(not written\)/);
    expect(moved).toContain(`<textarea readonly rows="6">\n${shown}</textarea>`);
    expect(moved).toContain("claude-opus-4</textarea>");
  });

  it("an action answers the round its page showed or none: a page the gate has moved on from writes nothing", async () => {
    const { root, ui, cookie, origin } = await project(false, 1);
    const layout = new Layout(root);
    const step = () => stepGate(loadContext(layout), "r1", "G-plan");
    const verify = () => verifyGate(loadContext(layout), "r1", "G-plan", () => undefined, Date.now() + 60_000);
    const issues = (round: number) =>
      respond(loadContext(layout), "r1", "G-plan", {
        read: async () =>
          "```review_result.v1\n" +
          JSON.stringify({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: `defect ${round}` }] }) +
          "\n```\n",
        reviewerModel: "gpt-5",
        round,
      });
    const gatePage = async () => (await raw(ui, "GET", "/gate/r1/G-plan", { Cookie: cookie })).text;
    const form = { Cookie: cookie, Origin: origin, "Content-Type": "application/x-www-form-urlencoded" };
    const files = () => readdirSync(layout.gateDir("r1", "G-plan")).sort();
    const notice = async (posted: { status: number; headers: Record<string, unknown> }) => {
      expect(posted.status).toBe(303);
      const to = String(posted.headers.location).slice(ui.base.length);
      return /class="notice (?:ok|error)" role="status">([^<]*)</.exec((await raw(ui, "GET", to, { Cookie: cookie })).text)?.[1];
    };
    // round 1 for the manual reviewer: the answer form carries the round its page shows
    await step();
    const page1 = await gatePage();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page1)![1]!;
    expect(page1).toContain('<input type="hidden" name="round" value="1" />');
    // round 1 ends with findings at its cap: the decide form shows round 1's escalation
    expect(await issues(1)).toMatchObject({ ok: true, round: 1 });
    await verify();
    await step();
    expect(await gatePage()).toMatch(/Decide: cap_hit[\s\S]*name="round" value="1"/);
    // …and before the person clicks, someone else (the CLI, another console) extends the cap, the author resubmits,
    // and round 2 ends at the cap too
    expect(
      await decideEscalation(loadContext(layout), "r1", "G-plan", { choice: "extend-cap", extendBy: 1, decidedBy: "cli" }),
    ).toMatchObject({
      ok: true,
    });
    await step();
    expect(await resubmit(loadContext(layout), "r1", "G-plan")).toMatchObject({ ok: true, round: 1 });
    await step();
    // the round-1 page's answer and resubmit reach round 2 only as refusals
    const before2 = files();
    const answer = `reviewer_model=gpt-5&review=${encodeURIComponent("## SATISFIED\n")}&round=1&csrf=${csrf}`;
    expect(await notice(await raw(ui, "POST", "/gate/r1/G-plan/respond", form, answer))).toMatch(
      /^this answers round 1, but r1 G-plan is at round 2 now .*nothing was written$/,
    );
    expect(files()).toEqual(before2);
    expect(await issues(2)).toMatchObject({ ok: true, round: 2 });
    await verify();
    await step();
    expect(files()).toContain("escalation-2.json");
    const before = files();
    for (const action of ["decide", "resubmit", "rebut"]) {
      const posted = await raw(ui, "POST", `/gate/r1/G-plan/${action}`, form, `choice=force-pass&text=no&round=1&csrf=${csrf}`);
      // round 1's resubmit landed (the CLI's): the same action from the old page is told so, and writes nothing either
      expect(await notice(posted), action).toMatch(
        action === "resubmit"
          ? /^resubmitted after round 1 \(already: it landed before; nothing written again\)$/
          : /^this answers round 1, but r1 G-plan is at round 2 now .*nothing was written$/,
      );
    }
    // a form that names no round (not one this console rendered) is refused too
    const bare = await raw(ui, "POST", "/gate/r1/G-plan/decide", form, `choice=force-pass&csrf=${csrf}`);
    expect(await notice(bare)).toBe("the form names no round: reload the page and act again; nothing was written");
    expect(files()).toEqual(before);
    // the page as it is now decides round 2
    expect(await gatePage()).toMatch(/Decide: cap_hit[\s\S]*name="round" value="2"/);
    const fresh = await raw(ui, "POST", "/gate/r1/G-plan/decide", form, `choice=force-pass&round=2&csrf=${csrf}`);
    expect(await notice(fresh)).toMatch(/^decision recorded: force-pass \(round 2, cap_hit\)$/);
    expect(files()).toContain("decision-2.json");
  });

  it("reads a number of rounds as the CLI does: 1e0, or a number given with another choice, is refused, nothing written", async () => {
    const { root, ui, cookie, origin } = await project(false, 1);
    const layout = new Layout(root);
    const step = () => stepGate(loadContext(layout), "r1", "G-plan");
    await step();
    const answered = await respond(loadContext(layout), "r1", "G-plan", {
      read: async () =>
        "```review_result.v1\n" +
        JSON.stringify({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "defect" }] }) +
        "\n```\n",
      reviewerModel: "gpt-5",
      round: 1,
    });
    expect(answered).toMatchObject({ ok: true });
    await verifyGate(loadContext(layout), "r1", "G-plan", () => undefined, Date.now() + 60_000);
    await step();
    const page = (await raw(ui, "GET", "/gate/r1/G-plan", { Cookie: cookie })).text;
    expect(page).toMatch(/Decide: cap_hit/);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
    const form = { Cookie: cookie, Origin: origin, "Content-Type": "application/x-www-form-urlencoded" };
    const notice = async (body: string) => {
      const posted = await raw(ui, "POST", "/gate/r1/G-plan/decide", form, `${body}&round=1&csrf=${csrf}`);
      expect(posted.status).toBe(303);
      const to = String(posted.headers.location).slice(ui.base.length);
      return /class="notice (?:ok|error)" role="status">([^<]*)</.exec((await raw(ui, "GET", to, { Cookie: cookie })).text)?.[1];
    };
    const files = () => readdirSync(layout.gateDir("r1", "G-plan")).sort();
    const before = files();
    // Number() would take each of these; the CLI refuses them, and so does every face
    for (const typed of ["1e0", "0x2", "2.0", "+1"])
      expect(await notice(`choice=extend-cap&extend_by=${encodeURIComponent(typed)}`)).toBe(
        `extend-cap takes a whole number of rounds from 1 to 5, not &quot;${typed}&quot;`,
      );
    // a number typed beside another choice is not dropped: the person meant something the choice does not do
    expect(await notice("choice=force-pass&extend_by=2")).toBe("a number of rounds (1-5) goes with extend-cap, and only with it");
    expect(files()).toEqual(before);
    expect(await notice("choice=extend-cap&extend_by=2")).toMatch(/^decision recorded: extend-cap \(round 1, cap_hit\)/);
    expect(JSON.parse(readFileSync(layout.gateFile("r1", "G-plan", "decision-1.json"), "utf8"))).toMatchObject({ extend_by: 2 });
  });

  it("judges no gate on settings with problems: every page shows the problems instead, as status and check refuse them", async () => {
    const { root, ui, cookie } = await project();
    const layout = new Layout(root);
    await stepGate(loadContext(layout), "r1", "G-plan");
    const page = async (p: string) => (await raw(ui, "GET", p, { Cookie: cookie })).text;
    expect(await page("/gate/r1/G-plan")).toContain("the manual reviewer");
    // one bad value beside what the project meant: the key would be dropped and the gate judged on its defaults
    writeFileSync(layout.settings, JSON.stringify({ family_aliases: { "gpt-5": "anthropic", mycorp: "not-a-family" } }));
    for (const p of ["/", "/gate/r1/G-plan"]) {
      const text = await page(p);
      expect(text, p).toContain("No gate is shown: the settings have problems");
      expect(text, p).toMatch(/family_aliases\.mycorp/);
      expect(text, p).not.toMatch(/data-key=|pending|manual reviewer|<form class="act"/);
    }
    // fixed: the gate is judged again
    writeFileSync(layout.settings, JSON.stringify({ family_aliases: { "gpt-5": "anthropic" } }));
    expect(await page("/gate/r1/G-plan")).toContain("the manual reviewer");
  });

  it("lists what the workers ignore under .guild/runs, as status does: a run behind a link is no row, yet check fails it", async () => {
    const { root, ui, cookie } = await project();
    const elsewhere = tempRoot();
    cpSync(path.join(root, ".guild", "runs", "r1"), elsewhere, { recursive: true });
    symlinkSync(elsewhere, path.join(root, ".guild", "runs", "linked"));
    const list = (await raw(ui, "GET", "/", { Cookie: cookie })).text;
    expect(list).toMatch(/ignored \(it hides gates `check` fails\): <code>\.guild\/runs\/linked<\/code> — symlink refused/);
  });

  it("on a fresh project (no .guild) serves, makes nothing, and lists the first review a command requests there", async () => {
    const root = tempRoot();
    writeFileSync(path.join(root, "plan.md"), "# Plan\n");
    const ui = await startConsole({ root, host: "127.0.0.1", port: 0, readOnly: false, poll: false, reconcileMs: 100 });
    running.push(ui);
    const cookie = `guild_bus_ui_${ui.port}=${new URL(ui.url).searchParams.get("token")}`;
    const page = await raw(ui, "GET", "/", { Cookie: cookie });
    expect(page.status).toBe(200);
    expect(existsSync(path.join(root, ".guild")), "the console starts no project").toBe(false);
    const layout = new Layout(root);
    expect(
      (await requestReview(layout, { artifact: "plan.md", gate: "G-plan", author: "claude", reviewer: "manual", runId: "r1" })).ok,
    ).toBe(true);
    for (const deadline = Date.now() + scaled(30_000); !(await raw(ui, "GET", "/", { Cookie: cookie })).text.includes("G-plan");) {
      if (Date.now() > deadline) throw new Error("the console never listed r1/G-plan");
      await sleep(100);
    }
  });

  it("--read-only refuses every action before reading it", async () => {
    const { ui, cookie, origin } = await project(true);
    const r = await raw(ui, "POST", "/gate/r1/G-plan/resubmit", { Cookie: cookie, Origin: origin }, "");
    expect(r.status).toBe(403);
    expect(r.text).toMatch(/read-only/);
    expect((await raw(ui, "GET", "/gate/r1/G-plan", { Cookie: cookie })).text).not.toContain('<form class="act"');
  });
});
