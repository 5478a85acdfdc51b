import { createServer } from "node:net";
import { createRuntime } from "../../src/runtime/index.ts";
import type { Runtime } from "../../src/runtime/types.ts";
import type { ProviderEvent } from "../../src/providers/types.ts";

export async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

export function textOf(events: readonly ProviderEvent[], type: "text_delta" | "reasoning_delta" = "text_delta"): string {
  return events.map((event) => (event.type === type ? event.text : "")).join("");
}

export function toolCallsOf(events: readonly ProviderEvent[]): { id: string; name: string; arguments: string }[] {
  return events.flatMap((event) => (event.type === "tool_call" ? [{ id: event.id, name: event.name, arguments: event.arguments }] : []));
}

export function lastEvent(events: readonly ProviderEvent[]): ProviderEvent | undefined {
  return events[events.length - 1];
}

/** The real runtime with a fixed environment (and optionally cwd). */
export function runtimeWith(env: Record<string, string>, cwd?: string): Runtime {
  const real = createRuntime();
  return { ...real, env: () => ({ ...env }), cwd: () => cwd ?? real.cwd() };
}

/** A 127.0.0.1 port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const FAST_RETRY = { attempts: 3, baseDelayMs: 10 };
