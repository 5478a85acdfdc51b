/**
 * `apply_patch`: a patch in Codex's format (patch-parse.ts) adding, updating, moving and deleting
 * files. Every path is confined to the workspace exactly as `write` and `edit` paths are
 * (paths.ts). The whole patch is worked out in memory against the files as they are, sections in
 * order (a later section sees what an earlier one did to the same file), and only then written:
 * all files change or none (file-changes.ts). The result lists them as Codex does (`A`, `M`, `D`).
 */
import type { FileSystem } from "../runtime/types.ts";
import type { PatchedFile, ToolContext, ToolResult } from "./types.ts";
import { defineTool } from "./define-tool.ts";
import { applyPatchInputSchema, type ApplyPatchInput } from "./schemas.ts";
import { displayPath, resolveInWorkspace } from "./paths.ts";
import { failure, looksBinary } from "./output.ts";
import { parsePatch, type PatchOp } from "./patch-parse.ts";
import { applyChunks } from "./patch-apply.ts";
import { commitChanges, type FileChange } from "./file-changes.ts";

/** A patch naming more files than this is refused before anything is read. */
export const PATCH_MAX_FILES = 500;

interface Slot {
  readonly before: string | null;
  current: string | null;
  /** Set when an `*** Move to:` took the file elsewhere. */
  movedTo?: string;
}

class Workspace {
  readonly slots = new Map<string, Slot>();
  constructor(
    private readonly fs: FileSystem,
    private readonly ctx: ToolContext,
  ) {}

  resolve(given: string): string {
    const resolved = resolveInWorkspace(this.fs, { cwd: this.ctx.cwd, workspaceRoot: this.ctx.workspaceRoot, path: given });
    if (!resolved.ok) throw new Error(resolved.message);
    return resolved.path;
  }

  /** The file's content as the patch has it so far (null: absent). */
  slot(path: string, given: string): Slot {
    const known = this.slots.get(path);
    if (known !== undefined) return known;
    const stat = this.fs.stat(path);
    if (stat !== undefined && stat.kind !== "file") throw new Error(`${given} is a directory, not a file`);
    let before: string | null = null;
    if (stat !== undefined) {
      const bytes = this.fs.readBytes(path);
      if (bytes !== undefined && looksBinary(bytes)) throw new Error(`${given} is a binary file; apply_patch changes text files only`);
      before = bytes === undefined ? null : new TextDecoder().decode(bytes);
    }
    const slot: Slot = { before, current: before };
    this.slots.set(path, slot);
    return slot;
  }
}

function applyOp(ws: Workspace, op: PatchOp): void {
  const path = ws.resolve(op.path);
  const slot = ws.slot(path, op.path);
  if (op.kind === "add") {
    slot.current = op.contents;
    return;
  }
  if (slot.current === null) throw new Error(`${op.path} does not exist (use '*** Add File:' to create it)`);
  if (op.kind === "delete") {
    slot.current = null;
    return;
  }
  const applied = applyChunks(slot.current, op.chunks, op.path);
  if (!applied.ok) throw new Error(applied.message);
  if (op.movePath === null || ws.resolve(op.movePath) === path) {
    slot.current = applied.text;
    return;
  }
  const destPath = ws.resolve(op.movePath);
  const dest = ws.slot(destPath, op.movePath);
  dest.current = applied.text;
  slot.current = null;
  slot.movedTo = destPath;
}

function summary(ws: Workspace, ctx: ToolContext): { lines: string[]; files: PatchedFile[] } {
  const lines: string[] = [];
  const files: PatchedFile[] = [];
  const destinations = new Set(Array.from(ws.slots.values(), (slot) => slot.movedTo));
  for (const [path, slot] of ws.slots) {
    // A move is listed once, under its destination (as Codex does).
    if (destinations.has(path)) continue;
    if (slot.movedTo !== undefined) {
      const dest = ws.slots.get(slot.movedTo);
      files.push({ kind: "update", path, movePath: slot.movedTo, originalFile: slot.before, updatedFile: dest?.current ?? null });
      lines.push(`M ${displayPath(ctx.cwd, slot.movedTo)}`);
      continue;
    }
    if (slot.before === slot.current) continue;
    const kind = slot.current === null ? "delete" : slot.before === null ? "add" : "update";
    files.push({ kind, path, originalFile: slot.before, updatedFile: slot.current });
    lines.push(`${kind === "add" ? "A" : kind === "delete" ? "D" : "M"} ${displayPath(ctx.cwd, path)}`);
  }
  return { lines, files };
}

function applyPatch(input: ApplyPatchInput, ctx: ToolContext): ToolResult {
  const parsed = parsePatch(input.input);
  if (!parsed.ok) return failure(`invalid patch: ${parsed.message}; nothing was changed`);
  if (parsed.ops.length > PATCH_MAX_FILES) return failure(`the patch has ${parsed.ops.length} file sections (at most ${PATCH_MAX_FILES}); split it`);
  const fs = ctx.runtime.fs;
  const ws = new Workspace(fs, ctx);
  try {
    for (const op of parsed.ops) applyOp(ws, op);
  } catch (error) {
    return failure(`${error instanceof Error ? error.message : String(error)}; nothing was changed`);
  }
  const changes: FileChange[] = [];
  for (const [path, slot] of ws.slots) if (slot.before !== slot.current) changes.push({ path, before: slot.before, after: slot.current });
  const written = commitChanges(fs, changes, (path) => displayPath(ctx.cwd, path));
  if (!written.ok) return failure(written.message);
  const { lines, files } = summary(ws, ctx);
  const content =
    lines.length === 0 ? "The patch changed nothing (every file already had that content)." : ["Success. Updated the following files:", ...lines].join("\n");
  const metadata = { files: files.map((file) => ({ path: file.movePath ?? file.path, kind: file.kind, ...(file.movePath ? { moved_from: file.path } : {}) })) };
  return { success: true, content, metadata, details: { tool: "apply_patch", files } };
}

export const applyPatchTool = defineTool({
  name: "apply_patch",
  description: [
    "Add, update, move and delete files with one patch; all files change or none. Format:",
    "*** Begin Patch",
    "*** Add File: path/new.txt",
    "+every line of the new file, each starting with +",
    "*** Update File: path/old.txt",
    "*** Move to: path/renamed.txt   (optional)",
    "@@ def function_or_class_line_near_the_change   (optional anchor)",
    " a context line (space)",
    "-a removed line",
    "+an added line",
    "*** Delete File: path/gone.txt",
    "*** End Patch",
    "Give about 3 lines of unchanged context around each change; paths are relative to the cwd.",
  ].join("\n"),
  schema: applyPatchInputSchema,
  run: applyPatch,
});
