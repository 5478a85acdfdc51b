// Compaction that keeps failing (LOOP-70): a fake OpenAI server that answers every summarizing
// request with a tool call. The summarizing request offers no tools, a tool-call answer is a
// failure, and automatic attempts back off and stop after AUTO_COMPACTION_MAX_FAILURES.
import { describe, expect, test } from "bun:test";
import { createServer, type IncomingMessage } from "node:http";
import { makeWorld } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { renderOpenAI } from "../support/fake-openai.ts";
import { listenLocal } from "../support/listen.ts";
import { readJsonBody } from "../support/events.ts";
import { lastJson } from "./support.ts";
import { AUTO_COMPACTION_MAX_FAILURES } from "../../src/agent/compaction.ts";

type Body = { messages: { role: string; content: string | null }[]; tools?: unknown[] };

const readBody = (req: IncomingMessage): Promise<Body> => readJsonBody<Body>(req);

/** Main requests get `calls` bash calls (input tokens over the limit), then "done"; summaries get a tool call. */
async function stubbornServer(calls: number): Promise<{ url: string; summaries: Body[]; mains: number; close(): Promise<void> }> {
  const summaries: Body[] = [];
  let mains = 0;
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const last = String(body.messages.at(-1)?.content ?? "");
      let events: string[];
      if (last.includes("Summarize the conversation")) {
        summaries.push(body);
        events = renderOpenAI({ toolCalls: [{ name: "bash", arguments: { command: "echo no summary" } }], usage: { input: 500, output: 5 } });
      } else {
        mains += 1;
        events =
          mains <= calls
            ? renderOpenAI({ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }], usage: { input: 500, output: 5 } })
            : renderOpenAI({ text: "done" });
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(events.join(""));
    });
  });
  const listening = await listenLocal(server);
  return {
    url: listening.url,
    summaries,
    get mains() {
      return mains;
    },
    close: listening.close,
  };
}

describe("compaction backoff", () => {
  test("LOOP-70 a summarizing request answered with a tool call is a failure; attempts back off and stop", async () => {
    const w = makeWorld();
    const server = await stubbornServer(40);
    try {
      const r = await runCliInProcess(w, [
        "run",
        "--provider",
        "openai",
        "--base-url",
        server.url,
        "--permission-mode",
        "bypass",
        "--max-context-tokens",
        "200",
        "--output-format",
        "json",
        "go",
      ]);
      expect(r.code).toBe(0);
      expect(lastJson(r.stdout)).toMatchObject({ result: "done", stop_reason: "completed" });
      expect(server.mains).toBe(41);
      // 40 checks over the limit: attempts at checks 1, 3, 6 and 11, then off for the session.
      expect(server.summaries).toHaveLength(AUTO_COMPACTION_MAX_FAILURES);
      for (const body of server.summaries) {
        expect(body.tools ?? []).toEqual([]);
        expect(body.messages.filter((m) => m.role !== "system").map((m) => m.role)).toEqual(["user"]);
        expect(String(body.messages.at(-1)?.content)).toContain("[tool call");
      }
      expect(r.stderr).toContain("compaction skipped: the summarizing request answered with a tool call");
      expect(r.stderr).toContain(`automatic compaction is off for this session after ${AUTO_COMPACTION_MAX_FAILURES} failed attempts`);
    } finally {
      await server.close();
    }
  });
});
