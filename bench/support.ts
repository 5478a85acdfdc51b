/** Pieces every bench shares: medians, timing an action, and the floor of a directly spawned process. */
import type { Runtime } from "../src/runtime/types.ts";

/** The median (the mean of the two middle values for an even count); 0 for no values. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Milliseconds `action` takes. */
export async function time(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

async function drain(stream: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!stream) return;
  const reader = stream.getReader();
  for (;;) if ((await reader.read()).done) return;
}

/** The floor a hook is measured against: `argv` spawned directly, the same stdin written, pipes read, exit awaited. */
export async function spawnDirect(runtime: Runtime, argv: string[], cwd: string, env: Record<string, string>, stdin: Uint8Array): Promise<void> {
  const spawned = await runtime.spawn({ argv, cwd, env, newGroup: true, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  if (!spawned.ok) throw new Error(`spawn failed: ${spawned.message}`);
  const { child } = spawned;
  await Promise.all([
    child
      .writeStdin(stdin)
      .catch(() => undefined)
      .then(() => child.closeStdin()),
    drain(child.stdout),
    drain(child.stderr),
    child.exited,
  ]);
}
