// Reviewer prose (summaries, finding details) is hostile input: rendered by markdown-it with raw HTML off, no
// autolinks, no images, and only http, https and mailto links; everything else is escaped text.
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
md.validateLink = (url: string) => /^(https?:|mailto:)/i.test(url.trim());
md.disable("image"); // the page loads nothing from elsewhere (and the CSP would block it anyway)
md.disable("autolink"); // <https://…> stays text, as bare addresses do (linkify off)

/** Safe HTML for a piece of untrusted Markdown. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}

/**
 * markdown-it's time grows with the text, and some text costs far more than prose: a planted run of `[` takes seconds
 * per megabyte, and a result may hold megabytes. One process serves every page and the live updates, so a page renders
 * as Markdown at most this much of one text, and this much in all; the rest of its prose is shown as plain text.
 */
export const MAX_MARKDOWN_CHARS = 20_000;
export const PAGE_MARKDOWN_CHARS = 200_000;

/**
 * One page's Markdown renderer: the HTML of a text while the page's budget lasts, else null (the caller shows the
 * text as plain, escaped text). A text longer than MAX_MARKDOWN_CHARS is never rendered.
 */
export function markdownBudget(total = PAGE_MARKDOWN_CHARS): (text: string) => string | null {
  let left = total;
  return (text) => {
    if (text.length > MAX_MARKDOWN_CHARS || text.length > left) return null;
    left -= text.length;
    return md.render(text);
  };
}
