/**
 * `tool_response` of the claude dialect, per tool, in the shapes Claude Code sends to PostToolUse
 * hooks, so scripts that read more than the decision fields (`.tool_response.stdout`,
 * `.tool_response.file.content`, `.tool_response.structuredPatch`, …) run unchanged:
 *
 * - Bash `{stdout, stderr, interrupted, isImage}`
 * - Read `{type: "text", file: {filePath, content, numLines, startLine, totalLines}}` (no line numbers)
 * - Write `{type: "create"|"update", filePath, content, structuredPatch, originalFile}`
 * - Edit `{filePath, oldString, newString, originalFile, structuredPatch, userModified, replaceAll}`
 * - Grep `{mode, numFiles, filenames, content?, numLines?, numMatches?, appliedLimit?}`
 * - Glob `{filenames, durationMs, numFiles, truncated}`
 * - Task `{status, prompt, agentId, content: [{type: "text", text}]}`
 * - MultiEdit `{filePath, edits, originalFileContents, structuredPatch, userModified}`
 * - TodoWrite `{oldTodos, newTodos}`
 * - WebFetch `{bytes, code, codeText, result, durationMs, url}`
 * - apply_patch (no Claude Code tool; shaped like Write/Edit per file):
 *   `{files: [{type: "create"|"update"|"delete", filePath, movePath?, originalFile, structuredPatch}]}`
 * - any other tool (MCP tools, bash_output, kill_shell): the generic `{content, metadata}`
 *
 * Every shape also carries `success` (Claude Code's own documentation shows it, and scripts test
 * `.tool_response.success`). The facts come from the tool's in-memory `details`; without them
 * (`agent hooks test --result`), they are derived from `content` and `metadata` as far as possible.
 * Pure; never throws.
 */
import type { ToolDetails } from "../../tools/types.ts";
import { structuredPatch } from "./claude-patch.ts";
import type { ToolCallInfo, ToolResultInfo } from "./types.ts";

type Json = Record<string, unknown>;
type DetailsOf<T extends ToolDetails["tool"]> = Extract<ToolDetails, { tool: T }>;

/** Claude Code marks stdout holding an image data URL. */
const IMAGE_DATA_URL = /^data:image\/[a-z0-9.+-]+;base64,/i;
/** Our read output line: `%6d\t<text>`. */
const NUMBERED_LINE = /^ *(\d+)\t(.*)$/;

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function isFor<T extends ToolDetails["tool"]>(details: ToolDetails, tool: T): details is DetailsOf<T> {
  return details.tool === tool;
}

function detailsFor<T extends ToolDetails["tool"]>(result: ToolResultInfo, tool: T): DetailsOf<T> | undefined {
  const details = result.details;
  return details !== undefined && isFor(details, tool) ? details : undefined;
}

function filePath(tool: ToolCallInfo, result: ToolResultInfo, details: { readonly path: string } | undefined): string {
  return details?.path ?? str(result.metadata?.path) ?? str(tool.input.file_path) ?? "";
}

function bash(result: ToolResultInfo): Json {
  const details = detailsFor(result, "bash");
  const meta = result.metadata ?? {};
  const stdout = details?.stdout ?? result.content.trimEnd();
  return {
    stdout,
    stderr: details?.stderr ?? "",
    interrupted: details?.interrupted ?? (meta.timed_out === true || meta.cancelled === true),
    isImage: IMAGE_DATA_URL.test(stdout),
    // `run_in_background`: Claude Code names the shell it started.
    ...(meta.background === true && typeof meta.shell_id === "string" ? { backgroundTaskId: meta.shell_id } : {}),
  };
}

function read(tool: ToolCallInfo, result: ToolResultInfo): Json {
  const details = detailsFor(result, "read");
  if (details !== undefined) {
    const { content, numLines, startLine, totalLines } = details;
    return { type: "text", file: { filePath: filePath(tool, result, details), content, numLines, startLine, totalLines } };
  }
  // Derived from our numbered output: its numbered lines, prefixes removed.
  const lines: string[] = [];
  let startLine: number | undefined;
  for (const line of result.content.split("\n")) {
    const match = NUMBERED_LINE.exec(line);
    if (match === null) break;
    startLine ??= Number(match[1]);
    lines.push(match[2] ?? "");
  }
  return {
    type: "text",
    file: {
      filePath: filePath(tool, result, undefined),
      content: lines.join("\n"),
      numLines: lines.length,
      startLine: startLine ?? num(tool.input.offset) ?? 1,
      totalLines: num(result.metadata?.total_lines) ?? lines.length,
    },
  };
}

function write(tool: ToolCallInfo, result: ToolResultInfo): Json {
  const details = detailsFor(result, "write");
  const content = str(tool.input.content) ?? "";
  const originalFile = details?.originalFile ?? null;
  return {
    type: details === undefined || details.created ? "create" : "update",
    filePath: filePath(tool, result, details),
    content,
    structuredPatch: originalFile === null ? [] : structuredPatch(originalFile, content),
    originalFile,
  };
}

function edit(tool: ToolCallInfo, result: ToolResultInfo): Json {
  const details = detailsFor(result, "edit");
  return {
    filePath: filePath(tool, result, details),
    oldString: str(tool.input.old_string) ?? "",
    newString: str(tool.input.new_string) ?? "",
    originalFile: details?.originalFile ?? "",
    structuredPatch: details === undefined ? [] : structuredPatch(details.originalFile, details.updatedFile),
    // Claude Code sets this when the user changed the proposed edit; nobody can here.
    userModified: false,
    replaceAll: tool.input.replace_all === true,
  };
}

function contentLines(content: string): string[] {
  return content === "" || content === "No matches found" || content === "No files found" ? [] : content.split("\n").filter((line) => !line.startsWith("["));
}

function grep(tool: ToolCallInfo, result: ToolResultInfo): Json {
  const details = detailsFor(result, "grep");
  const mode = details?.mode ?? str(tool.input.output_mode) ?? "files_with_matches";
  const limit = details !== undefined ? details.appliedLimit : num(tool.input.head_limit);
  const applied = limit === undefined ? {} : { appliedLimit: limit };
  const lines = details === undefined ? contentLines(result.content) : undefined;
  if (mode === "files_with_matches") {
    const filenames = details?.filenames ?? lines ?? [];
    return { mode, filenames, numFiles: filenames.length, ...applied };
  }
  const content = details?.content ?? (lines ?? []).join("\n");
  if (mode === "count") {
    const numFiles = details?.numFiles ?? (lines ?? []).length;
    const numMatches = details?.numMatches ?? num(result.metadata?.matches) ?? 0;
    return { mode, numFiles, filenames: [], content, numMatches, ...applied };
  }
  return { mode, numFiles: 0, filenames: [], content, numLines: details?.numLines ?? (lines ?? []).length, ...applied };
}

function glob(result: ToolResultInfo): Json {
  const details = detailsFor(result, "glob");
  const filenames = details?.filenames ?? contentLines(result.content);
  return {
    filenames,
    durationMs: details?.durationMs ?? 0,
    numFiles: filenames.length,
    truncated: details?.truncated ?? result.content.includes("\n[truncated"),
  };
}

function task(tool: ToolCallInfo, result: ToolResultInfo): Json {
  const agentId = str(result.metadata?.child_session_id);
  return {
    status: result.success ? "completed" : "failed",
    prompt: str(tool.input.prompt) ?? "",
    ...(agentId !== undefined ? { agentId } : {}),
    content: [{ type: "text", text: result.content }],
  };
}

function multiEdit(tool: ToolCallInfo, result: ToolResultInfo): Json {
  const details = detailsFor(result, "multi_edit");
  return {
    filePath: filePath(tool, result, details),
    edits: Array.isArray(tool.input.edits) ? tool.input.edits : [],
    originalFileContents: details?.originalFile ?? "",
    structuredPatch: details === undefined ? [] : structuredPatch(details.originalFile, details.updatedFile),
    userModified: false,
  };
}

function todoWrite(tool: ToolCallInfo, result: ToolResultInfo): Json {
  const details = detailsFor(result, "todo_write");
  return { oldTodos: details?.oldTodos ?? [], newTodos: details?.newTodos ?? (Array.isArray(tool.input.todos) ? tool.input.todos : []) };
}

function webFetch(tool: ToolCallInfo, result: ToolResultInfo): Json {
  const details = detailsFor(result, "web_fetch");
  const meta = result.metadata ?? {};
  return {
    bytes: details?.bytes ?? num(meta.bytes) ?? 0,
    code: details?.code ?? num(meta.status) ?? 0,
    codeText: details?.codeText ?? "",
    result: details?.result ?? result.content,
    durationMs: details?.durationMs ?? 0,
    url: details?.url ?? str(meta.url) ?? str(tool.input.url) ?? "",
  };
}

function applyPatch(result: ToolResultInfo): Json {
  const details = detailsFor(result, "apply_patch");
  const files = (details?.files ?? []).map((file) => ({
    type: file.kind === "add" ? "create" : file.kind,
    filePath: file.path,
    ...(file.movePath !== undefined ? { movePath: file.movePath } : {}),
    originalFile: file.originalFile,
    structuredPatch: structuredPatch(file.originalFile ?? "", file.updatedFile ?? ""),
  }));
  return { files };
}

/** The claude `tool_response` for a finished call. */
export function claudeToolResponse(tool: ToolCallInfo, result: ToolResultInfo): Json {
  const shape = (() => {
    switch (tool.name) {
      case "bash":
        return bash(result);
      case "read":
        return read(tool, result);
      case "write":
        return write(tool, result);
      case "edit":
        return edit(tool, result);
      case "grep":
        return grep(tool, result);
      case "glob":
        return glob(result);
      case "task":
        return task(tool, result);
      case "multi_edit":
        return multiEdit(tool, result);
      case "todo_write":
        return todoWrite(tool, result);
      case "web_fetch":
        return webFetch(tool, result);
      case "apply_patch":
        return applyPatch(result);
      default:
        // No per-tool shape (MCP tools, bash_output, kill_shell): what the tool returned.
        return { content: result.content, metadata: result.metadata ?? {} };
    }
  })();
  return { ...shape, success: result.success };
}
