// The Stop hook's input names the stop (session_id, transcript_path) so that the guild-bus hooks of one stop count one
// block. Claude Code sends the turn's last message in the same input: a long answer must not hide the names.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { stopEvent } from "../../src/cli/hook.js";
import { tempRoot } from "../helpers/tmp.js";

describe("hook stop: the stop its input names", () => {
  it("reads session and transcript past a long last_assistant_message", async () => {
    const transcript = path.join(tempRoot(), "session.jsonl");
    writeFileSync(transcript, '{"type":"user"}\n');
    const input = {
      session_id: "s1",
      transcript_path: transcript,
      hook_event_name: "Stop",
      stop_hook_active: false,
      last_assistant_message: "A long report. ".repeat(20_000), // 300 KB: an answer of a few tens of thousands of tokens
    };
    expect(await stopEvent(Readable.from([Buffer.from(JSON.stringify(input))]))).toEqual({ session: "s1", transcriptBytes: 16 });
  });
});
