/** How a hook spec is shown to people (`agent hooks list`, `/hooks`): its matcher, policy and command. */
import type { HookSpec } from "./types.ts";

/** The matcher column: hook-dir `match`, lifecycle regex source, or a list hook's filters. */
export function matcherText(spec: HookSpec): string {
  switch (spec.form) {
    case "dir":
      return spec.match;
    case "lifecycle":
      return spec.matcher === undefined || spec.matcher === "" ? "*" : spec.matcher;
    case "list": {
      if (spec.phase === "after_assistant" || spec.phase === "after_reasoning") return "*";
      const include = spec.includeTools.length > 0 ? spec.includeTools.join(",") : "*";
      return spec.excludeTools.length > 0 ? `${include} except ${spec.excludeTools.join(",")}` : include;
    }
  }
}

export function policyText(spec: HookSpec): string {
  return spec.form === "dir" ? (spec.failClosed ? "fail_closed" : "fail_open") : spec.failurePolicy;
}

export function commandText(spec: HookSpec): string {
  return spec.form === "dir" ? spec.run : spec.command;
}
