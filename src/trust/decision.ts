/**
 * The D17 decision shared by the CLI gate (src/cli/trust-gate.ts) and the interactive session.
 * With hooks off the gate still holds for the settings that decide where model requests go: the
 * material then holds only those, and each must be pinned unchanged.
 */
import type { Runtime } from "../runtime/types.ts";
import type { HookSpec } from "../hooks/types.ts";
import type { ProjectTrustMaterial } from "./material.ts";
import { checkTrust, EMPTY_MATERIAL, refusalMessage, trustListing, type TrustMaterial } from "./trust.ts";

export type TrustDecision =
  | { readonly ok: true }
  /** `askable`: pinning the shown material would settle it (false when trust.json is unreadable or the material over its bound). */
  | { readonly ok: false; readonly message: string; readonly askable: boolean; readonly material: TrustMaterial };

/** What the decision reads of a loaded config (config's LoadedConfig satisfies it). */
export interface TrustSubject {
  readonly home: string;
  readonly projectRoot: string;
  readonly projectScope: boolean;
  readonly hooksOff: string | null;
  readonly hooks: readonly HookSpec[];
  readonly projectTrustMaterial: ProjectTrustMaterial | null;
}

/** `instructions`: the project's instruction files as review lines, shown in a refusal (made only when one is). */
export function trustDecision(runtime: Runtime, loaded: TrustSubject, options: { once?: boolean; instructions?: () => readonly string[] } = {}): TrustDecision {
  const material = loaded.projectScope ? loaded.projectTrustMaterial : null;
  const state = checkTrust(runtime, loaded.home, loaded.projectRoot, material, { once: options.once ?? false, subset: loaded.hooksOff !== null });
  if (state.status === "not-needed" || state.status === "trusted") return { ok: true };
  const shown = material ?? EMPTY_MATERIAL;
  if (state.status === "error") return { ok: false, message: state.message, askable: false, material: shown };
  // With hooks off the material is partial (routing settings only): pinning it would drop the rest
  // of the pin, so the person is sent to `agent hooks trust`, which reviews everything.
  return {
    ok: false,
    message: refusalMessage(state, loaded.projectRoot, [...trustListing(loaded.hooks, shown), ...(options.instructions?.() ?? [])]),
    askable: loaded.hooksOff === null,
    material: shown,
  };
}
