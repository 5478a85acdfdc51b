/**
 * Envelope `affected_paths` (D20, SEC-26..28, TOOL-51/52): a bounded allowlist built only from the
 * structured path field of `read`, `write`, `edit`, `multi_edit` and `grep`, and from the file
 * headers of an `apply_patch` patch (read by the tool's own parser, so hooks see exactly the files the
 * patch would change). Command text, output and prose are never parsed. A path is sent as given or left out, never normalised; in redacted mode it carries
 * the same secret redaction as the request field it came from. Never throws.
 */
import type { FileSystem } from "../runtime/types.ts";
import { isInside } from "../util/path-utils.ts";
import { isBuiltin, type ToolId, type ToolName } from "../tools/names.ts";
import { parsePatch, patchPaths } from "../tools/patch-parse.ts";

export type AffectedPathKind = "read_target" | "write_target";

export interface AffectedPath {
  readonly path: string;
  readonly kind: AffectedPathKind;
  readonly source: "request.file_path" | "request.path" | "request.input";
}

/** Longest path (UTF-8 bytes) that is reported; longer ones are omitted. */
export const AFFECTED_PATH_MAX_BYTES = 4096;
/** Most paths one patch reports; past it the rest are left out. */
export const AFFECTED_PATCH_MAX_PATHS = 64;

const FIELD_BY_TOOL: Partial<Record<ToolName, { field: "file_path" | "path"; kind: AffectedPathKind }>> = {
  read: { field: "file_path", kind: "read_target" },
  write: { field: "file_path", kind: "write_target" },
  edit: { field: "file_path", kind: "write_target" },
  multi_edit: { field: "file_path", kind: "write_target" },
  grep: { field: "path", kind: "read_target" },
};

const DRIVE = /^[A-Za-z]:[\\/]/;

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || path.startsWith("\\") || DRIVE.test(path);
}

/** Components of `path` split on both separators, without empty and `.` parts. */
function components(path: string): string[] {
  return path.split(/[\\/]/).filter((part) => part !== "" && part !== ".");
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

function joinPath(base: string, parts: readonly string[]): string {
  const trimmed = base.endsWith("/") ? base.slice(0, -1) : base;
  return parts.length === 0 ? base : `${trimmed}/${parts.join("/")}`;
}

/**
 * Components of `path` relative to `cwd`, or null when the path leaves it lexically. An absolute
 * path counts only when it lies under `cwd` (compared component-wise).
 */
function relativeComponents(path: string, cwd: string): string[] | null {
  const parts = components(path);
  if (parts.includes("..")) return null;
  if (!isAbsolute(path)) return parts;
  if (!cwd.startsWith("/") || !path.startsWith("/")) return null;
  const base = components(cwd);
  if (parts.length < base.length) return null;
  for (let i = 0; i < base.length; i++) if (parts[i] !== base[i]) return null;
  return parts.slice(base.length);
}

/** True when no existing prefix of `cwd/parts` is a symlink resolving outside the real cwd. */
function staysInsideAfterSymlinks(fs: FileSystem, cwd: string, parts: readonly string[]): boolean {
  const realCwd = fs.realpath(cwd) ?? cwd;
  for (let i = 1; i <= parts.length; i++) {
    const prefix = joinPath(cwd, parts.slice(0, i));
    const stat = fs.lstat(prefix);
    if (stat === undefined) return true;
    if (stat.kind === "symlink") {
      const real = fs.realpath(prefix);
      if (real === undefined || !isInside(real, realCwd)) return false;
    }
  }
  return true;
}

function isSafePath(fs: FileSystem, path: string, cwd: string): boolean {
  if (path === "" || path.includes("\0")) return false;
  if (path.length > AFFECTED_PATH_MAX_BYTES || utf8Length(path) > AFFECTED_PATH_MAX_BYTES) return false;
  const parts = relativeComponents(path, cwd);
  if (parts === null) return false;
  return staysInsideAfterSymlinks(fs, cwd, parts);
}

export interface AffectedPathsOptions {
  /**
   * Redacted payload mode: the text redaction that `request.file_path` / `request.path` get, so
   * a token in a path never reaches the hook through `affected_paths` either. The safety checks
   * run on the real path; the reported path is the redacted one (the same string as the request's).
   */
  readonly redact?: (path: string) => string;
}

export function affectedPaths(
  fs: FileSystem,
  tool: ToolId,
  input: Readonly<Record<string, unknown>>,
  cwd: string,
  options: AffectedPathsOptions = {},
): AffectedPath[] {
  if (tool === "apply_patch") return patchTargets(fs, input, cwd, options);
  const rule = isBuiltin(tool) ? FIELD_BY_TOOL[tool] : undefined;
  if (rule === undefined) return [];
  const value = input[rule.field];
  if (typeof value !== "string" || !isSafePath(fs, value, cwd)) return [];
  const path = options.redact ? options.redact(value) : value;
  return [{ path, kind: rule.kind, source: rule.field === "file_path" ? "request.file_path" : "request.path" }];
}

/** Every file an `apply_patch` input names (sources and move destinations), once each, in order. */
function patchTargets(fs: FileSystem, input: Readonly<Record<string, unknown>>, cwd: string, options: AffectedPathsOptions): AffectedPath[] {
  const patch = input.input;
  if (typeof patch !== "string") return [];
  const parsed = parsePatch(patch);
  if (!parsed.ok) return [];
  const out: AffectedPath[] = [];
  for (const path of new Set(patchPaths(parsed.ops))) {
    if (out.length >= AFFECTED_PATCH_MAX_PATHS) break;
    if (!isSafePath(fs, path, cwd)) continue;
    out.push({ path: options.redact ? options.redact(path) : path, kind: "write_target", source: "request.input" });
  }
  return out;
}
