/**
 * Path arithmetic without `node:path` (which only `src/runtime/` may import); these helpers never
 * touch the file system. Two syntaxes, told apart by the path itself so the same code serves both
 * platforms (and Windows paths are testable on Linux):
 *   - POSIX: `/`-separated; a backslash is an ordinary file-name character.
 *   - Windows: a drive root (`C:\`, `c:/`) or a UNC share (`\\server\share\`, `\\?\C:\` long form);
 *     both `\` and `/` separate, the result is written with `\`, and comparisons ignore case (the
 *     file systems Windows ships are case-insensitive).
 * A relative path is POSIX on its own and Windows once it is resolved against a Windows base, so a
 * model's `src\a.ts` works against `C:\work`. A rooted path without a drive (`\x`, `/x`) resolved
 * against a Windows base lands on that base's drive or share.
 */

const DRIVE = /^([A-Za-z]):(?=[\\/]|$)/;
const UNC = /^\\\\([^\\/]+)[\\/]+([^\\/]+)/;
const LONG_DRIVE = /^\\\\\?\\([A-Za-z]):(?=[\\/]|$)/;
const LONG_UNC = /^\\\\\?\\UNC\\([^\\/]+)[\\/]+([^\\/]+)/i;

interface Parsed {
  /** `/`, `C:\`, `\\server\share\`, or `` for a relative path. */
  readonly root: string;
  readonly rest: string;
  readonly windows: boolean;
}

function parse(path: string, windowsContext = false): Parsed {
  const longUnc = LONG_UNC.exec(path);
  if (longUnc) return { root: `\\\\${longUnc[1]}\\${longUnc[2]}\\`, rest: path.slice(longUnc[0].length), windows: true };
  const longDrive = LONG_DRIVE.exec(path);
  if (longDrive) return { root: `${longDrive[1]!.toUpperCase()}:\\`, rest: path.slice(longDrive[0].length), windows: true };
  const drive = DRIVE.exec(path);
  if (drive) return { root: `${drive[1]!.toUpperCase()}:\\`, rest: path.slice(2), windows: true };
  const unc = UNC.exec(path);
  if (unc) return { root: `\\\\${unc[1]}\\${unc[2]}\\`, rest: path.slice(unc[0].length), windows: true };
  if (path.startsWith("/")) return { root: "/", rest: path, windows: windowsContext };
  if (windowsContext && path.startsWith("\\")) return { root: "\\", rest: path, windows: true };
  return { root: "", rest: path, windows: windowsContext };
}

/** True for a Windows drive or UNC path (`C:\x`, `c:/x`, `C:`, `\\server\share\x`). */
export function isWindowsPath(path: string): boolean {
  return parse(path).root.length > 1;
}

/** True for `/x`, `C:\x`, `C:/x` and `\\server\share\x`. */
export function isAbsolutePath(path: string): boolean {
  return parse(path).root !== "";
}

function collapse(rest: string, windows: boolean, absolute: boolean): string[] {
  const out: string[] = [];
  for (const segment of rest.split(windows ? /[\\/]/ : "/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(segment);
  }
  return out;
}

function normalizeParsed({ root, rest, windows }: Parsed): string {
  const segments = collapse(rest, windows, root !== "");
  const sep = windows ? "\\" : "/";
  const joined = segments.join(sep);
  if (root === "") return joined === "" ? "." : joined;
  const shownRoot = root === "/" || root === "\\" ? sep : root;
  return `${shownRoot}${joined}`;
}

/** Collapses repeated separators, `.` and `..`. `..` at the root stays at the root. Keeps relative paths relative. */
export function normalizePath(path: string): string {
  return normalizeParsed(parse(path));
}

export function joinPath(...parts: string[]): string {
  const present = parts.filter((part) => part.length > 0);
  if (present.length === 0) return ".";
  const first = parse(present[0]!);
  if (!first.windows) return normalizePath(present.join("/"));
  return normalizeParsed({ root: first.root, rest: [first.rest, ...present.slice(1)].join("\\"), windows: true });
}

/** `path` made absolute against `base` (itself absolute), then normalised. */
export function resolvePath(base: string, path: string): string {
  const baseParsed = parse(base);
  const parsed = parse(path, baseParsed.windows);
  if (parsed.root === "") return joinPath(base, path);
  // `\x` or `/x` against a Windows base: the base's drive or share.
  if (baseParsed.windows && (parsed.root === "/" || parsed.root === "\\")) return normalizeParsed({ root: baseParsed.root, rest: parsed.rest, windows: true });
  return normalizeParsed(parsed);
}

/** The root of an absolute path (`/`, `C:\`, `\\server\share\`), `` for a relative one. */
export function rootOf(path: string): string {
  const parsed = parse(path);
  return parsed.root === "" ? "" : normalizeParsed({ ...parsed, rest: "" });
}

export function dirnamePath(path: string): string {
  const parsed = parse(path);
  const normalized = normalizeParsed(parsed);
  const root = parsed.root === "" ? "" : normalizeParsed({ ...parsed, rest: "" });
  if (normalized === root) return root;
  const sep = parsed.windows ? "\\" : "/";
  const index = normalized.lastIndexOf(sep);
  if (index < 0) return ".";
  return index < root.length ? root : normalized.slice(0, index);
}

export function basenamePath(path: string): string {
  const parsed = parse(path);
  const normalized = normalizeParsed(parsed);
  if (parsed.root !== "" && normalized === normalizeParsed({ ...parsed, rest: "" })) return "";
  const index = normalized.lastIndexOf(parsed.windows ? "\\" : "/");
  return index < 0 ? normalized : normalized.slice(index + 1);
}

/** The form two paths are compared in: normalised, and lower-cased for Windows paths. */
function comparable(path: string): { text: string; windows: boolean; root: boolean } {
  const parsed = parse(path);
  const normalized = normalizeParsed(parsed);
  const isRoot = parsed.root !== "" && normalized === normalizeParsed({ ...parsed, rest: "" });
  return { text: parsed.windows ? normalized.toLowerCase() : normalized, windows: parsed.windows, root: isRoot };
}

/** True when `path` is `dir` or lies below it (both absolute). */
export function isInside(path: string, dir: string): boolean {
  const p = comparable(path);
  const d = comparable(dir);
  if (p.windows !== d.windows) return false;
  if (d.root) return p.text.startsWith(d.text);
  return p.text === d.text || p.text.startsWith(`${d.text}${d.windows ? "\\" : "/"}`);
}

/** `path` relative to `dir` when inside it (`.` for `dir` itself), else undefined. */
export function relativeInside(path: string, dir: string): string | undefined {
  if (!isInside(path, dir)) return undefined;
  const p = normalizePath(path);
  const d = comparable(dir);
  if (p.length === d.text.length) return ".";
  return d.root ? p.slice(d.text.length) : p.slice(d.text.length + 1);
}
