/**
 * The managed layer: an administrator's policy file, read before user and project config. It has
 * the schema of config.toml plus switches only it may set. Its hooks run first, and AGENT_HOOKS=off
 * and --no-hooks leave them on; its deny rules come first in the merged deny list, which the gate
 * checks before any allow (D24).
 *
 * Where: `/etc/agent/`, `/Library/Application Support/agent/` on macOS, `%ProgramData%\agent\` on
 * Windows; `managed.toml` and `managed.json`. `AGENT_MANAGED_FILE` names one more file, read after
 * them: it adds to the system files and can never hide one. Every file must be owned by root and
 * writable by nobody else (its directory too), so a user cannot create one to grant himself rights;
 * any other file is refused with one error, and commands that start a session do not start.
 */
import type { FileSystem, PlatformFacts, Runtime } from "../runtime/types.ts";
import { dirnamePath, joinPath, normalizePath } from "../util/path-utils.ts";
import { isRecord } from "../util/records.ts";
import { matchPattern, parseRule } from "../permissions/rules.ts";
import type { PermissionMode } from "../permissions/mode.ts";
import type { SettingsFile } from "./paths.ts";
import { readSettingsFile, type ParsedSettingsFile } from "./settings.ts";
import type { WarningSink } from "./warnings.ts";

export const MANAGED_FILE_ENV = "AGENT_MANAGED_FILE";

/** The switches and restrictions of the managed layer, merged over every managed file (any true wins). */
export interface ManagedPolicy {
  /** The managed files that were read (present and accepted). */
  readonly files: readonly string[];
  /** Only managed hooks load: user, project, agent front-matter and Claude settings hooks do not. */
  readonly managedHooksOnly: boolean;
  /** Only managed `mcp_servers` start. */
  readonly managedMcpOnly: boolean;
  /** `bypass` permission mode is refused, from a flag or from any config file. */
  readonly disableBypassMode: boolean;
  /** Provider base URLs allowed (exact, or `*` globs); null: any. */
  readonly allowedBaseUrls: readonly string[] | null;
  /** Models allowed (exact, or `*` globs); null: any. */
  readonly allowedModels: readonly string[] | null;
}

export const NO_MANAGED_POLICY: ManagedPolicy = {
  files: [],
  managedHooksOnly: false,
  managedMcpOnly: false,
  disableBypassMode: false,
  allowedBaseUrls: null,
  allowedModels: null,
};

/** The platform's managed directory. */
export function managedDir(platform: Pick<PlatformFacts, "os">, env: Readonly<Record<string, string>>): string {
  if (platform.os === "win32") return joinPath(env.ProgramData || env.PROGRAMDATA || "C:\\ProgramData", "agent");
  if (platform.os === "darwin") return "/Library/Application Support/agent";
  return "/etc/agent";
}

/** The managed files in load order: the system pair, then `AGENT_MANAGED_FILE` when set (and not one of them). */
export function managedSettingsFiles(platform: Pick<PlatformFacts, "os">, env: Readonly<Record<string, string>>): SettingsFile[] {
  const dir = managedDir(platform, env);
  const files: SettingsFile[] = [
    { path: joinPath(dir, "managed.toml"), scope: "managed", format: "toml" },
    { path: joinPath(dir, "managed.json"), scope: "managed", format: "json" },
  ];
  const extra = env[MANAGED_FILE_ENV]?.trim();
  if (extra) {
    const path = normalizePath(extra);
    if (!files.some((file) => file.path === path)) files.push({ path, scope: "managed", format: path.toLowerCase().endsWith(".json") ? "json" : "toml" });
  }
  return files;
}

function octal(mode: number): string {
  return `0${(mode & 0o7777).toString(8)}`;
}

/**
 * Why `path` may not hold policy, or null when it may: the file (symlinks followed) and its
 * directory must be owned by root (uid 0) and not writable by group or others; a sticky directory
 * (`/tmp`-like) is allowed, since nobody else can replace a root-owned file in it. Windows has no
 * uid in a stat, so ownership there is the administrator's ACL to keep (docs/teams.md).
 */
export function ownershipProblem(fs: FileSystem, platform: Pick<PlatformFacts, "os">, path: string): string | null {
  if (platform.os === "win32") return null;
  const real = fs.realpath(path) ?? path;
  const file = fs.stat(real);
  if (file === undefined) return "cannot be read";
  if (file.kind !== "file") return "is not a regular file";
  const problem = (what: string, stat: { uid?: number; mode: number }, sticky: boolean): string | null => {
    const uid = stat.uid ?? -1;
    if (uid !== 0) return `${what} is owned by uid ${uid}, not root`;
    if ((stat.mode & 0o022) !== 0 && !(sticky && (stat.mode & 0o1000) !== 0))
      return `${what} is writable by ${(stat.mode & 0o002) !== 0 ? "everyone" : "its group"} (mode ${octal(stat.mode)})`;
    return null;
  };
  const own = problem("the file", file, false);
  if (own !== null) return own;
  const dir = dirnamePath(real);
  const dirStat = fs.stat(dir);
  if (dirStat === undefined) return `its directory ${dir} cannot be read`;
  return problem(`its directory ${dir}`, dirStat, true);
}

/**
 * Reads the managed files. A missing file is skipped; a file that fails the ownership check is
 * refused (an error in `sink`, its data dropped), as is one that does not parse.
 */
export function readManagedFiles(runtime: Pick<Runtime, "fs" | "platform" | "env">, sink: WarningSink): ParsedSettingsFile[] {
  const env = runtime.env();
  const out: ParsedSettingsFile[] = [];
  for (const file of managedSettingsFiles(runtime.platform, env)) {
    if (runtime.fs.stat(file.path) === undefined && runtime.fs.lstat(file.path) === undefined) continue;
    const problem = ownershipProblem(runtime.fs, runtime.platform, file.path);
    if (problem !== null) {
      sink.error(
        file.path,
        "",
        `managed policy refused: ${problem}; it must be owned by root and writable by nobody else (sudo chown root:root FILE && sudo chmod 644 FILE, and the same owner for its directory)`,
      );
      out.push({ file, present: true, data: undefined });
      continue;
    }
    out.push(readSettingsFile(runtime.fs, file, sink));
  }
  return out;
}

function stringList(value: unknown, path: string, field: string, sink: WarningSink): string[] | null {
  if (value === undefined) return null;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string" && item.length > 0)) {
    sink.error(path, field, `${JSON.stringify(value)} is not an array of non-empty strings; nothing is allowed until it is fixed`);
    return [];
  }
  return value;
}

/** A managed deny rule that does not parse is an error here (so `agent hooks validate` names it), and stops sessions. */
function checkDenyRules(path: string, data: Readonly<Record<string, unknown>>, sink: WarningSink): void {
  const deny = isRecord(data.permissions) ? data.permissions.deny : undefined;
  if (!Array.isArray(deny)) return;
  deny.forEach((rule: unknown, index) => {
    if (typeof rule !== "string") return;
    const parsed = parseRule(rule);
    if (!parsed.ok) sink.error(path, `permissions.deny[${index}]`, `${parsed.error}; no session starts until it is fixed`);
  });
}

/** The switches of the accepted managed files. Restrictions of several files intersect (each must allow). */
export function managedPolicyOf(files: readonly ParsedSettingsFile[], sink: WarningSink): ManagedPolicy {
  let policy: ManagedPolicy = { ...NO_MANAGED_POLICY, files: files.filter((file) => file.data !== undefined).map((file) => file.file.path) };
  const narrow = (current: readonly string[] | null, next: string[] | null): readonly string[] | null =>
    next === null ? current : current === null ? next : current.filter((entry) => next.includes(entry));
  for (const { file, data } of files) {
    if (data === undefined) continue;
    const flag = (key: "managed_hooks_only" | "managed_mcp_only" | "disable_bypass_mode"): boolean => {
      const value = data[key];
      if (value === undefined) return false;
      if (typeof value === "boolean") return value;
      sink.error(file.path, key, `${JSON.stringify(value)} is not a boolean (write true or false); treated as true`);
      return true;
    };
    checkDenyRules(file.path, data, sink);
    policy = {
      ...policy,
      managedHooksOnly: policy.managedHooksOnly || flag("managed_hooks_only"),
      managedMcpOnly: policy.managedMcpOnly || flag("managed_mcp_only"),
      disableBypassMode: policy.disableBypassMode || flag("disable_bypass_mode"),
    };
    const restrictions = data.provider_policy;
    if (restrictions === undefined) continue;
    if (!isRecord(restrictions)) {
      sink.error(file.path, "provider_policy", "must be a table/object with allowed_base_urls and/or allowed_models");
      continue;
    }
    for (const key of Object.keys(restrictions)) {
      if (key !== "allowed_base_urls" && key !== "allowed_models")
        sink.error(file.path, `provider_policy.${key}`, "unknown key (use allowed_base_urls or allowed_models)");
    }
    policy = {
      ...policy,
      allowedBaseUrls: narrow(policy.allowedBaseUrls, stringList(restrictions.allowed_base_urls, file.path, "provider_policy.allowed_base_urls", sink)),
      allowedModels: narrow(policy.allowedModels, stringList(restrictions.allowed_models, file.path, "provider_policy.allowed_models", sink)),
    };
  }
  return policy;
}

/** Why `mode` may not be used under `policy`, or null. */
export function bypassRefusal(mode: PermissionMode, policy: ManagedPolicy): string | null {
  if (mode !== "bypass" || !policy.disableBypassMode) return null;
  return `bypass permission mode is disabled by managed policy (${policy.files.join(", ")})`;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/** Why a provider with this base URL and model may not be used under `policy`, or null. */
export function providerRefusal(
  policy: ManagedPolicy,
  provider: { readonly id: string; readonly baseUrl: string | null; readonly model: string },
): string | null {
  const where = `managed policy (${policy.files.join(", ")})`;
  if (policy.allowedBaseUrls !== null) {
    // The script provider reads replies from a local file and sends nothing anywhere.
    if (provider.baseUrl !== null && !policy.allowedBaseUrls.some((allowed) => matchPattern(trimSlash(allowed), trimSlash(provider.baseUrl ?? "")))) {
      return `base URL ${provider.baseUrl} is not allowed by ${where}; allowed: ${policy.allowedBaseUrls.join(", ") || "none"}`;
    }
  }
  if (policy.allowedModels !== null && provider.id !== "script" && !policy.allowedModels.some((allowed) => matchPattern(allowed, provider.model))) {
    return `model ${provider.model} is not allowed by ${where}; allowed: ${policy.allowedModels.join(", ") || "none"}`;
  }
  return null;
}
