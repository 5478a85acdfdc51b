/** How a hook spec is shown to people (`agent hooks list`, `/hooks`): its matcher, policy and command (or http URL, or prompt). */
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

/** What runs: the run path, the command, `http POST URL (payload …)` or `prompt[ (model M)]: TEMPLATE`. */
export function commandText(spec: HookSpec): string {
  if (spec.form === "dir") return spec.run;
  if (spec.form === "lifecycle" && spec.handler !== undefined) {
    const handler = spec.handler;
    if (handler.type === "http") {
      const headers = Object.keys(handler.headers);
      return `http POST ${handler.url} (payload ${handler.payload}${headers.length > 0 ? `; headers ${headers.join(", ")}` : ""})`;
    }
    return `prompt${handler.model !== undefined ? ` (model ${handler.model})` : ""}: ${handler.prompt}`;
  }
  return spec.command;
}

/** The `type` of a hook: `command` for every form but http and prompt lifecycle hooks. */
export function handlerType(spec: HookSpec): "command" | "http" | "prompt" {
  return spec.form === "lifecycle" && spec.handler !== undefined ? spec.handler.type : "command";
}
