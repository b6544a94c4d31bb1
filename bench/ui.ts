// The review console with a large history: `guild-bus ui` over a tree of finished runs, timed as a user meets it —
// the server's answer for the gate list, the browser's first contentful paint (Debian's chromium, when installed),
// a gate timeline, and the console's memory.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { stopWorkers, tracked } from "./harness.js";

const CHROMIUM = "/usr/bin/chromium";

const rssMb = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024);

function timedGet(
  port: number,
  path: string,
  cookie: string,
  keep = false,
): Promise<{ ms: number; status: number; bytes: number; text: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, headers: { Cookie: cookie } }, (res) => {
      let bytes = 0;
      let text = "";
      res.on("data", (b: Buffer) => {
        bytes += b.length;
        if (keep) text += b;
      });
      res.on("end", () => resolve({ ms: performance.now() - t0, status: res.statusCode!, bytes, text }));
    })
      .on("error", reject)
      .end();
  });
}

/** First contentful paint of the gate list in a real browser, per navigation; null without chromium. */
async function browserPaints(url: string, home: string, times: number): Promise<{ list: number[]; empty: number[] } | null> {
  if (!existsSync(CHROMIUM)) return null;
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  try {
    const page = await browser.newPage();
    await page.goto(url);
    const paints = { list: [] as number[], empty: [] as number[] };
    // interleaved: the same page with no row matching is the browser's own floor on this machine
    for (let i = 0; i < 2 * times; i++) {
      await page.goto(i % 2 ? `${home}/?q=no-such-gate` : `${home}/`, { waitUntil: "load" });
      paints[i % 2 ? "empty" : "list"].push(
        await page.evaluate(
          () =>
            new Promise<number>((resolve) => {
              const now = performance.getEntriesByName("first-contentful-paint")[0];
              if (now) return resolve(now.startTime);
              new PerformanceObserver((l) => resolve(l.getEntries()[0]!.startTime)).observe({ type: "paint", buffered: true });
            }),
        ),
      );
    }
    return paints;
  } finally {
    await browser.close();
  }
}

export async function uiFigures(
  root: string,
  bin: string,
  gates: number,
  stats: { median: (v: number[]) => number; p95: (v: number[]) => number },
) {
  const t0 = performance.now();
  const child = tracked(spawn(process.execPath, [bin, "ui", "--root", root, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] }));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (b: Buffer) => {
        out += b;
        const m = /http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/\?token=[\w-]+/.exec(out);
        if (m) resolve(m[0]);
      });
      child.once("exit", () => reject(new Error(`guild-bus ui exited: ${out}`)));
    });
    const ready = performance.now() - t0;
    const { port, searchParams, origin, pathname } = new URL(url);
    const base = pathname.replace(/\/$/, ""); // every page is under the console's random path
    const cookie = `guild_bus_ui_${port}=${searchParams.get("token")}`;
    const firstList = await timedGet(Number(port), `${base}/`, cookie); // while the table still fills in
    for (;;) {
      const page = await timedGet(Number(port), `${base}/`, cookie, true);
      if (!page.text.includes("reading gates")) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const filled = performance.now() - t0;
    const lists: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 30; i++) {
      const r = await timedGet(Number(port), `${base}/`, cookie);
      if (r.status !== 200) throw new Error(`gate list answered ${r.status}`);
      lists.push(r.ms);
      bytes = r.bytes;
    }
    const timelines: number[] = [];
    for (let i = 0; i < 10; i++) timelines.push((await timedGet(Number(port), `${base}/gate/t0/G-spec`, cookie)).ms);
    const paints = await browserPaints(url, origin + base, 10);
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      gates,
      ready_ms: round(ready),
      list_while_filling_ms: round(firstList.ms),
      table_filled_ms: round(filled),
      list_first_ms: round(lists[0]!),
      list_median_ms: round(stats.median(lists)),
      list_p95_ms: round(stats.p95(lists)),
      list_kib: Math.round(bytes / 1024),
      first_paint_median_ms: paints ? round(stats.median(paints.list)) : null,
      first_paint_max_ms: paints ? round(Math.max(...paints.list)) : null,
      first_paint_no_rows_median_ms: paints ? round(stats.median(paints.empty)) : null,
      first_paint_goal_ms: 300,
      timeline_median_ms: round(stats.median(timelines)),
      rss_mb: rssMb(child.pid!),
      rss_goal_mb: 150,
    };
  } finally {
    await stopWorkers([child]); // exited before the caller removes the tree
  }
}
