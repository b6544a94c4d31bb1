// The console serves hostile text (artifacts, reviewer output) and can write decisions, so every request proves
// itself: a Host naming this server (no DNS rebinding), the per-start token (from ?token= once, then an HttpOnly
// SameSite=Strict cookie), and for a POST also the page's own Origin and the CSRF token of its form. Every answer
// carries a CSP with no inline script and nothing from elsewhere. Cookies ignore ports: a cookie for 127.0.0.1 goes to
// every server on 127.0.0.1, so the console lives under a random path and its cookie is scoped to that path.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";

export interface Secrets {
  /** Grants access: printed once in the URL. */
  token: string;
  /** Sent back in every form: a page of this server can read it, another site cannot. */
  csrf: string;
  /** Every page's path starts with it ("/" and a random segment): the cookie goes only there, never to another port's
   * server, which cannot guess it. Shown in the address bar: it grants nothing without the token. */
  base: string;
}

const random = (bytes: number) => randomBytes(bytes).toString("base64url");

export const newSecrets = (): Secrets => ({ token: random(24), csrf: random(24), base: `/${random(12)}` });

export function same(a: string | undefined | null, b: string): boolean {
  if (typeof a !== "string") return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function headers(c: Context): void {
  c.header("Content-Security-Policy", CSP);
  c.header("X-Content-Type-Options", "nosniff");
  // not no-referrer: under it a browser sends `Origin: null` with a same-origin form, and the Origin check needs it
  c.header("Referrer-Policy", "same-origin");
  c.header("X-Frame-Options", "DENY");
  c.header("Cache-Control", "no-store");
  c.header("Cross-Origin-Resource-Policy", "same-origin");
}

/**
 * `hosts`: the Host values this server answers to (host:port for each name it is reachable by on the bound address);
 * `origin`: what a same-origin POST carries. The cookie is named after the port: cookies ignore ports.
 */
export function guard(
  secrets: Secrets,
  allowed: { hosts: () => string[]; origins: () => string[]; cookie: () => string; readOnly: boolean },
): MiddlewareHandler {
  return async (c, next) => {
    headers(c);
    if (!allowed.hosts().includes(c.req.header("host") ?? "")) return c.text("refused: unknown Host\n", 421);
    const { base } = secrets;
    // an address from before a restart, or typed without the path: say where the pages are, never what the path is
    if (c.req.path !== base && !c.req.path.startsWith(`${base}/`))
      return c.text("not found: open the URL this console printed when it started (each start prints a new one)\n", 404);
    const given = c.req.query("token");
    if (given !== undefined) {
      if (!same(given, secrets.token)) return c.text("refused: wrong token\n", 403);
      setCookie(c, allowed.cookie(), secrets.token, { httpOnly: true, sameSite: "Strict", path: base });
      const url = new URL(c.req.url);
      url.searchParams.delete("token");
      // the token leaves the address bar (a browser's history keeps the printed URL: the token ends with this process);
      // the path starts with the base, never "//host/"
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    if (!same(getCookie(c, allowed.cookie()), secrets.token)) return c.text("refused: open the URL with ?token= printed at start\n", 401);
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      if (allowed.readOnly) return c.text("refused: the console is read-only\n", 403);
      if (!allowed.origins().includes(c.req.header("origin") ?? "")) return c.text("refused: cross-origin request\n", 403);
      let body: Record<string, unknown>;
      try {
        body = await c.req.parseBody();
      } catch {
        // a multipart body without its boundary, cut short or otherwise unreadable (Hono's parse throws)
        return c.text("refused: the form's body cannot be read; nothing was written\n", 400);
      }
      if (!same(typeof body.csrf === "string" ? body.csrf : null, secrets.csrf))
        return c.text("refused: missing or wrong CSRF token\n", 403);
    }
    await next();
    headers(c);
  };
}
