// Reviewer prose (summaries, finding details) is hostile input: rendered by markdown-it with raw HTML off, no
// autolinks, and only http, https and mailto links; everything else is escaped text.
import MarkdownIt from "markdown-it";

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
md.validateLink = (url: string) => /^(https?:|mailto:)/i.test(url.trim());

/** Safe HTML for a piece of untrusted Markdown. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
