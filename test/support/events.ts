/**
 * Reading what a run emitted, one way everywhere: session and hook-log JSONL, records of one type,
 * the final `--output-format json` line, and the JSON body a fake provider server received.
 */
import type { IncomingMessage } from "node:http";

type Rec = Record<string, unknown>;

/** Parsed JSONL text (session files, hook logs, stream-json output); blank lines skipped. */
export function readJsonl(text: string): Rec[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Rec);
}

/** The records of one type, in order. */
export function ofType(records: readonly Rec[], type: string): Rec[] {
  return records.filter((record) => record.type === type);
}

/** The last stdout line as JSON (the `--output-format json` object). */
export function lastJson(stdout: string): Rec {
  const lines = stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1] as string) as Rec;
}

/** A request body a fake server received, as text. */
export async function readBodyText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
}

/** A JSON request body a fake server received. */
export async function readJsonBody<T>(req: IncomingMessage): Promise<T> {
  return JSON.parse(await readBodyText(req)) as T;
}
