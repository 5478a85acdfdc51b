// Large bash outputs (TOOL-80): beyond BASH_INLINE_MAX_BYTES the whole output goes to a file beside
// the session and the model gets a bounded preview naming it; the model pages it with `read`.
// Through `agent run` against a fake OpenAI server that reads the path from the preview it was sent.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createServer, type IncomingMessage } from "node:http";
import { makeWorld, sessionFileOf, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { renderOpenAI } from "../support/fake-openai.ts";
import { listenLocal } from "../support/listen.ts";
import { readJsonBody } from "../support/events.ts";
import { BASH_INLINE_MAX_BYTES } from "../../src/tools/bash-output.ts";

type Body = { messages: { role: string; content: string | null }[] };

const readBody = (req: IncomingMessage): Promise<Body> => readJsonBody<Body>(req);

const PATH_IN_PREVIEW = /it is saved in (\S+); page through it with the read tool/;

/**
 * A fake OpenAI server whose first reply is the bash call `command`; `next` answers the later
 * requests (given the request and how many came before), by default with the text `done`.
 */
async function bashServer(command: string, next: (body: Body, seen: number) => string[] = () => renderOpenAI({ text: "done" })) {
  const bodies: Body[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      bodies.push(body);
      const events = bodies.length === 1 ? renderOpenAI({ toolCalls: [{ id: "c1", name: "bash", arguments: { command } }] }) : next(body, bodies.length - 1);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(events.join(""));
    });
  });
  return { bodies, listening: await listenLocal(server) };
}

/** `agent run` against `url` in bypass mode with json output (no `--trust`: the world has no project hooks). */
const runArgs = (url: string, ...rest: string[]): string[] => [
  "run",
  "--provider",
  "openai",
  "--base-url",
  url,
  "--permission-mode",
  "bypass",
  "--output-format",
  "json",
  ...rest,
];

describe("large bash outputs", () => {
  test("TOOL-80 a 170 KB output goes to a session file; the model gets a preview and pages the file with read", async () => {
    const w = makeWorld();
    const toolTexts = (body: Body): string[] => body.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    const { bodies, listening } = await bashServer("seq 1 30000; echo the-end", (body, seen) => {
      if (seen > 1) return renderOpenAI({ text: "done" });
      const path = PATH_IN_PREVIEW.exec(toolTexts(body)[0] ?? "")?.[1] ?? "no-path-in-preview";
      return renderOpenAI({ toolCalls: [{ id: "c2", name: "read", arguments: { file_path: path, offset: 15000, limit: 3 } }] });
    });
    try {
      const r = await runCliInProcess(w, runArgs(listening.url, "go"));
      expect(r.code).toBe(0);
      expect(bodies).toHaveLength(3);
      const preview = toolTexts(bodies[1] as Body)[0] ?? "";
      // Bounded: head, the note, tail; far below the output itself.
      expect(new TextEncoder().encode(preview).byteLength).toBeLessThan(BASH_INLINE_MAX_BYTES / 2);
      expect(preview.startsWith("1\n2\n3\n")).toBe(true);
      expect(preview.trimEnd().endsWith("30000\nthe-end")).toBe(true);
      const path = PATH_IN_PREVIEW.exec(preview)?.[1] ?? "";
      expect(path).toContain(".outputs/bash-");
      expect(existsSync(path)).toBe(true);
      expect(readFileSync(path, "utf8")).toBe(`${Array.from({ length: 30000 }, (_, i) => String(i + 1)).join("\n")}\nthe-end\n`);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const paged = toolTexts(bodies[2] as Body)[1] ?? "";
      expect(paged).toContain(" 15000\t15000\n");
      expect(paged).toContain(" 15002\t15002");
      expect(paged).toContain("use offset=15003 to read more");
    } finally {
      await listening.close();
    }
  });

  test("TOOL-80 with --no-session the output stays inline (capped as before)", async () => {
    const w = makeWorld();
    const { bodies, listening } = await bashServer("seq 1 30000");
    try {
      const r = await runCliInProcess(w, runArgs(listening.url, "--no-session", "go"));
      expect(r.code).toBe(0);
      const tool = (bodies[1] as Body).messages.find((m) => m.role === "tool");
      expect(String(tool?.content)).toBe(`${Array.from({ length: 30000 }, (_, i) => String(i + 1)).join("\n")}\n`);
    } finally {
      await listening.close();
    }
  });

  test("TOOL-80 the session file stores the preview once; resume, the transcript and sessions show still get it", async () => {
    const w = makeWorld();
    const { bodies, listening } = await bashServer("seq 1 30000; echo the-end");
    const run = (extra: string[], prompt: string) => runCliInProcess(w, runArgs(listening.url, ...extra, prompt));
    try {
      const first = await run([], "go");
      expect(first.code).toBe(0);
      const preview = (bodies[1] as Body).messages.find((m) => m.role === "tool")?.content ?? "";
      expect(preview).toContain("the-end");
      const id = String(JSON.parse(first.stdout.trim().split("\n").pop() ?? "{}").session_id);
      const file = sessionFileOf(join(w.agentHome, "sessions"), id);
      const text = readFileSync(file, "utf8");
      // A line of the preview's tail appears once in the JSONL: in tool_result; the delivered record refers to it.
      expect(preview).toContain("\n29999\n");
      expect(text.split("29999").length - 1).toBe(1);
      const delivered = text.split("\n").filter((line) => line.includes('"type":"tool_result_delivered"'));
      expect(delivered).toHaveLength(1);
      expect(JSON.parse(delivered[0] as string)).toEqual({ type: "tool_result_delivered", timestamp: expect.any(String), tool_call_id: "c1" });
      expect(transcriptToolResults(w, file)).toEqual([preview]);

      const resumed = await run(["--resume", id], "again");
      expect(resumed.code).toBe(0);
      // The provider gets the same preview back from the session file.
      expect((bodies[2] as Body).messages.find((m) => m.role === "tool")?.content).toBe(preview);
      const shown = await runCliInProcess(w, ["sessions", "show", id]);
      expect(shown.stdout).toContain("[result c1] 1\n  2\n  3\n");
      expect(shown.stdout).toContain("  the-end");
    } finally {
      await listening.close();
    }
  });
});

/** The `tool_result` blocks' contents of the Claude-shaped transcript beside `sessionFile`. */
function transcriptToolResults(w: World, sessionFile: string): string[] {
  const dir = join(w.agentHome, "sessions", "claude");
  const name = readdirSync(dir).find((entry) => sessionFile.endsWith(entry)) ?? "";
  return readFileSync(join(dir, name), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { message: { content: unknown } })
    .flatMap((entry) => (Array.isArray(entry.message?.content) ? (entry.message.content as { type: string; content: string }[]) : []))
    .filter((block) => block.type === "tool_result")
    .map((block) => block.content);
}
