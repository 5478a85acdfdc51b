// Large bash outputs (TOOL-80): beyond BASH_INLINE_MAX_BYTES the whole output goes to a file beside
// the session and the model gets a bounded preview naming it; the model pages it with `read`.
// Through `agent run` against a fake OpenAI server that reads the path from the preview it was sent.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { makeWorld } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { renderOpenAI } from "../support/fake-openai.ts";
import { listenLocal } from "../support/listen.ts";
import { readJsonBody } from "../support/events.ts";
import { BASH_INLINE_MAX_BYTES } from "../../src/tools/bash-output.ts";

type Body = { messages: { role: string; content: string | null }[] };

const readBody = (req: IncomingMessage): Promise<Body> => readJsonBody<Body>(req);

const PATH_IN_PREVIEW = /it is saved in (\S+); page through it with the read tool/;

describe("large bash outputs", () => {
  test("TOOL-80 a 170 KB output goes to a session file; the model gets a preview and pages the file with read", async () => {
    const w = makeWorld();
    const bodies: Body[] = [];
    const toolTexts = (body: Body): string[] => body.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    const server = createServer((req, res) => {
      void readBody(req).then((body) => {
        bodies.push(body);
        let events: string[];
        if (bodies.length === 1) {
          events = renderOpenAI({ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "seq 1 30000; echo the-end" } }] });
        } else if (bodies.length === 2) {
          const path = PATH_IN_PREVIEW.exec(toolTexts(body)[0] ?? "")?.[1] ?? "no-path-in-preview";
          events = renderOpenAI({ toolCalls: [{ id: "c2", name: "read", arguments: { file_path: path, offset: 15000, limit: 3 } }] });
        } else {
          events = renderOpenAI({ text: "done" });
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(events.join(""));
      });
    });
    const listening = await listenLocal(server);
    try {
      const r = await runCliInProcess(w, [
        "run",
        "--provider",
        "openai",
        "--base-url",
        listening.url,
        "--permission-mode",
        "bypass",
        "--output-format",
        "json",
        "go",
      ]);
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
    const bodies: Body[] = [];
    const server = createServer((req, res) => {
      void readBody(req).then((body) => {
        bodies.push(body);
        const events =
          bodies.length === 1
            ? renderOpenAI({ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "seq 1 30000" } }] })
            : renderOpenAI({ text: "done" });
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(events.join(""));
      });
    });
    const listening = await listenLocal(server);
    try {
      const r = await runCliInProcess(w, [
        "run",
        "--provider",
        "openai",
        "--base-url",
        listening.url,
        "--permission-mode",
        "bypass",
        "--no-session",
        "--output-format",
        "json",
        "go",
      ]);
      expect(r.code).toBe(0);
      const tool = (bodies[1] as Body).messages.find((m) => m.role === "tool");
      expect(String(tool?.content)).toBe(`${Array.from({ length: 30000 }, (_, i) => String(i + 1)).join("\n")}\n`);
    } finally {
      await listening.close();
    }
  });
});
