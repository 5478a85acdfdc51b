/**
 * gzip decompression for plugin archives (`agent plugin install x.tgz`), through `node:zlib`, which
 * Bun, Deno and Node all provide. Bounded: an archive that inflates past `maxBytes` is refused
 * rather than filling memory.
 */
import { gunzipSync } from "node:zlib";

export function gunzip(bytes: Uint8Array, maxBytes: number): { ok: true; bytes: Uint8Array } | { ok: false; error: string } {
  try {
    return { ok: true, bytes: new Uint8Array(gunzipSync(bytes, { maxOutputLength: maxBytes })) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: /maxOutputLength|larger than|buffer/i.test(message) ? `inflates past ${maxBytes / (1024 * 1024)} MiB` : `not a gzip archive (${message})`,
    };
  }
}
