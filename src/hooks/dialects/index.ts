/** Picks the dialect a hook speaks (D22: its `protocol`, defaulting from its form at load time). */
import type { HookSpec } from "../types.ts";
import type { Dialect } from "./types.ts";
import { actionDialect } from "./action.ts";
import { claudeDialect } from "./claude.ts";
import { envelopeDialect } from "./envelope.ts";

export { actionDialect } from "./action.ts";
export { claudeDialect } from "./claude.ts";
export { envelopeDialect } from "./envelope.ts";

const DIALECTS: Readonly<Record<HookSpec["dialect"], Dialect>> = {
  action: actionDialect,
  claude: claudeDialect,
  envelope: envelopeDialect,
};

/** The dialect object for `spec.dialect`. Never throws: the union is closed. */
export function dialectFor(spec: HookSpec): Dialect {
  return DIALECTS[spec.dialect];
}
