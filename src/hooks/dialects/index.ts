/** Picks the dialect a hook speaks (D22: its `protocol`, defaulting from its form at load time). */
import type { HookSpec } from "../types.ts";
import type { Dialect } from "./types.ts";
import type { FileSystem } from "../../runtime/types.ts";
import { actionDialect } from "./action.ts";
import { claudeDialect } from "./claude.ts";
import { createEnvelopeDialect } from "./envelope.ts";

export { actionDialect } from "./action.ts";
export { claudeDialect } from "./claude.ts";
export { createEnvelopeDialect } from "./envelope.ts";

/** What the envelope dialect needs from the runtime (affected_paths checks, payload_ref digests). */
export interface DialectDeps {
  readonly fs: FileSystem;
  readonly sha256Hex: (data: Uint8Array | string) => string;
}

/** The three dialects, built once per engine. */
export function createDialects(deps: DialectDeps): (spec: HookSpec) => Dialect {
  const table: Readonly<Record<HookSpec["dialect"], Dialect>> = {
    action: actionDialect,
    claude: claudeDialect,
    envelope: createEnvelopeDialect(deps),
  };
  return (spec) => table[spec.dialect];
}
