/**
 * Glob patterns for the `glob` tool and grep's `glob` filter: `*`, `?`, `[...]`, `**` (any number of
 * path segments) and `{a,b}` alternation, matched segment by segment against `/`-separated relative
 * paths. Wildcards do not match a leading `.` (hidden names) unless the pattern segment starts with `.`.
 */

/** Expands `{a,b}` groups (nested too) into plain patterns; an unbalanced `{` stays literal. */
export function expandBraces(pattern: string): string[] {
  let depth = 0;
  let start = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") {
      if (depth === 0) start = i;
      depth++;
    } else if (c === "}" && depth > 0) {
      depth--;
      if (depth === 0) {
        const inner = pattern.slice(start + 1, i);
        const options = splitTopLevelCommas(inner);
        if (options.length < 2) continue;
        const head = pattern.slice(0, start);
        const tail = pattern.slice(i + 1);
        return options.flatMap((option) => expandBraces(head + option + tail));
      }
    }
  }
  return [pattern];
}

function splitTopLevelCommas(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "," && depth === 0) {
      parts.push(text.slice(last, i));
      last = i + 1;
    }
  }
  parts.push(text.slice(last));
  return parts;
}

export function hasGlobMagic(segment: string): boolean {
  return /[*?[{]/.test(segment);
}

function segmentRegex(segment: string): RegExp {
  let source = "";
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charAt(i);
    if (c === "\\" && i + 1 < segment.length) {
      source += escapeRegex(segment.charAt(++i));
    } else if (c === "*") {
      source += "[^/]*";
    } else if (c === "?") {
      source += "[^/]";
    } else if (c === "[") {
      const end = segment.indexOf("]", i + 2);
      if (end === -1) {
        source += "\\[";
        continue;
      }
      let body = segment.slice(i + 1, end);
      if (body.startsWith("!")) body = `^${body.slice(1)}`;
      source += `[${body.replace(/\\/g, "\\\\")}]`;
      i = end;
    } else {
      source += escapeRegex(c);
    }
  }
  return new RegExp(`^${source}$`);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

type Segment = { kind: "globstar" } | { kind: "match"; regex: RegExp; allowDot: boolean };

function compileOne(pattern: string): Segment[] {
  const segments: Segment[] = [];
  for (const part of pattern.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "**") {
      if (segments.at(-1)?.kind !== "globstar") segments.push({ kind: "globstar" });
      continue;
    }
    segments.push({ kind: "match", regex: segmentRegex(part), allowDot: part.startsWith(".") || !hasGlobMagic(part.charAt(0)) });
  }
  return segments;
}

function matchSegments(segments: readonly Segment[], names: readonly string[], si: number, ni: number): boolean {
  if (si === segments.length) return ni === names.length;
  const segment = segments[si];
  if (segment === undefined) return false;
  if (segment.kind === "globstar") {
    // `**` spans zero or more non-hidden segments.
    for (let k = ni; k <= names.length; k++) {
      if (matchSegments(segments, names, si + 1, k)) return true;
      const name = names[k];
      if (name === undefined || name.startsWith(".")) return false;
    }
    return false;
  }
  const name = names[ni];
  if (name === undefined) return false;
  if (name.startsWith(".") && !segment.allowDot) return false;
  return segment.regex.test(name) && matchSegments(segments, names, si + 1, ni + 1);
}

/** Compiles a pattern into a predicate over `/`-separated relative paths. */
export function compileGlob(pattern: string): (relativePath: string) => boolean {
  const compiled = expandBraces(pattern).map(compileOne);
  return (relativePath) => {
    const names = relativePath.split("/").filter((name) => name.length > 0);
    return compiled.some((segments) => matchSegments(segments, names, 0, 0));
  };
}

/**
 * Splits a pattern into its leading literal directory (`src/lib` of `src/lib/**\/*.ts`) and the
 * rest, so a walk starts there; absolute and `..` prefixes end up in the base and get confined.
 */
export function splitGlobBase(pattern: string): { base: string; rest: string } {
  const parts = pattern.split("/");
  const base: string[] = [];
  while (parts.length > 1 && !hasGlobMagic(parts[0] ?? "") && !(parts[0] ?? "").includes("\\")) base.push(parts.shift() ?? "");
  const joined = base.join("/");
  return { base: pattern.startsWith("/") && joined === "" ? "/" : joined, rest: parts.join("/") };
}
