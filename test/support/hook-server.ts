/**
 * A real HTTP server on 127.0.0.1 for http hooks (node:http): records every request (method, path,
 * headers, body text) and answers by path:
 *   /deny      200 with a claude PreToolUse deny
 *   /allow     200 with an empty body (exit 0, no opinion)
 *   /context   200 with additionalContext "from-http"
 *   /garbage   200 with text that is not JSON (plain stdout)
 *   /status/N  status N with a JSON deny body (a status alone never decides)
 *   /hang      never answers (the hook's timeout ends it); `hung` resolves when one arrived
 *   /huge      200 with 2 MiB of "x" (over the 1 MiB cap)
 *   /redirect?to=URL  307 to URL
 */
import { listenLocal } from "./listen.ts";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export interface HookRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export interface HookServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly requests: HookRequest[];
  /** Resolves when the first /hang request has arrived. */
  readonly hung: Promise<void>;
  close(): Promise<void>;
}

export const DENY_BODY = JSON.stringify({
  hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "http says no" },
});

function answer(req: IncomingMessage, res: ServerResponse, onHang: () => void): void {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const path = url.pathname;
  if (path === "/deny") return void res.writeHead(200, { "content-type": "application/json" }).end(DENY_BODY);
  if (path === "/allow") return void res.writeHead(200).end();
  if (path === "/context") {
    return void res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "from-http" } }));
  }
  if (path === "/garbage") return void res.writeHead(200, { "content-type": "text/plain" }).end("<<not json>>");
  if (path.startsWith("/status/")) return void res.writeHead(Number(path.slice("/status/".length)), { "content-type": "application/json" }).end(DENY_BODY);
  if (path === "/hang") return onHang();
  if (path === "/huge") {
    res.writeHead(200, { "content-type": "text/plain" });
    const chunk = "x".repeat(64 * 1024);
    for (let i = 0; i < 32; i++) res.write(chunk);
    return void res.end();
  }
  if (path === "/redirect") return void res.writeHead(307, { location: url.searchParams.get("to") ?? "/" }).end();
  res.writeHead(404).end();
}

export async function startHookServer(): Promise<HookServer> {
  const requests: HookRequest[] = [];
  let markHung: () => void = () => undefined;
  const hung = new Promise<void>((resolve) => (markHung = resolve));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      answer(req, res, markHung);
    });
  });
  const listening = await listenLocal(server);
  return {
    url: listening.url,
    requests,
    hung,
    close: listening.close,
  };
}
