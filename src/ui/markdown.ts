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
