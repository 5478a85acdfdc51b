/**
 * POSIX path arithmetic without `node:path` (which only `src/runtime/` may import). Paths are
 * `/`-separated strings; these helpers never touch the file system.
 */

/** Collapses `//`, `.` and `..` segments. `..` at the root stays at the root. Keeps relative paths relative. */
export function normalizePath(path: string): string {
  const absolute = path.startsWith("/");
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(segment);
  }
  const joined = out.join("/");
  if (absolute) return `/${joined}`;
  return joined === "" ? "." : joined;
}

export function joinPath(...parts: string[]): string {
  return normalizePath(parts.filter((part) => part.length > 0).join("/"));
}

/** `path` made absolute against `base` (itself absolute), then normalised. */
export function resolvePath(base: string, path: string): string {
  return path.startsWith("/") ? normalizePath(path) : joinPath(base, path);
}

export function dirnamePath(path: string): string {
  const normalized = normalizePath(path);
  if (normalized === "/") return "/";
  const index = normalized.lastIndexOf("/");
  if (index < 0) return ".";
  return index === 0 ? "/" : normalized.slice(0, index);
}

export function basenamePath(path: string): string {
  const normalized = normalizePath(path);
  const index = normalized.lastIndexOf("/");
  return index < 0 ? normalized : normalized.slice(index + 1);
}

/** True when `path` is `dir` or lies below it (both absolute and normalised by the caller). */
export function isInside(path: string, dir: string): boolean {
  if (dir === "/") return path.startsWith("/");
  return path === dir || path.startsWith(`${dir}/`);
}

/** `path` relative to `dir` when inside it (`.` for `dir` itself), else undefined. */
export function relativeInside(path: string, dir: string): string | undefined {
  if (!isInside(path, dir)) return undefined;
  if (path === dir) return ".";
  return dir === "/" ? path.slice(1) : path.slice(dir.length + 1);
}
