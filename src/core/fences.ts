// Fenced code blocks in a reviewer's Markdown answer, found line by line with CommonMark's fence rules. A Markdown
// parser would see containers too, but marked overflows the stack and mdast takes minutes on hostile nesting
// (README, choices); this scan is linear and never recurses. SPEC §9.

export interface FencedBlock {
  /** The info string after the opening fence, trimmed. */
  info: string;
  body: string;
  /** False when the text ended inside the block (CommonMark: it runs to the end). */
  closed: boolean;
}

export interface FenceScan {
  lines: string[];
  /** Per line: inside a fence, its opening and closing lines included. */
  fenced: boolean[];
  blocks: FencedBlock[];
  /** The line a fence never closed opens at (it runs to the end), or lines.length when every fence closed. */
  unclosedFrom: number;
}

// Container-blind on purpose: any indentation opens a fence (inside a list item it is indented), so a line is
// taken as quoted whenever a Markdown reader could see it so.
const OPENING_RE = /^[ \t]*(`{3,}|~{3,})(.*)$/;
const CLOSING_RE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

export function scanFences(text: string): FenceScan {
  const lines = text.split(/\r?\n/);
  const fenced = lines.map(() => false);
  const blocks: FencedBlock[] = [];
  let open: { fence: string; info: string; from: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (open) {
      fenced[i] = true;
      const close = CLOSING_RE.exec(line)?.[1];
      // closed by the same character, at least as many of it
      if (close && close[0] === open.fence[0] && close.length >= open.fence.length) {
        blocks.push({ info: open.info, body: lines.slice(open.from + 1, i).join("\n"), closed: true });
        open = null;
      }
      continue;
    }
    const m = OPENING_RE.exec(line);
    // a backtick fence's info string has no backtick (```a``` on one line is inline code, not a fence)
    if (!m || (m[1]!.startsWith("`") && m[2]!.includes("`"))) continue;
    fenced[i] = true;
    open = { fence: m[1]!, info: m[2]!.trim(), from: i };
  }
  if (open) blocks.push({ info: open.info, body: lines.slice(open.from + 1).join("\n"), closed: false });
  return { lines, fenced, blocks, unclosedFrom: open ? open.from : lines.length };
}

/** The lines a Markdown reader sees as the writer's own text, not quoted in a fence. */
export function unfencedLines(text: string): string[] {
  const { lines, fenced } = scanFences(text);
  return lines.filter((_, i) => !fenced[i]);
}
