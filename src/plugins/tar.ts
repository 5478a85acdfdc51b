/**
 * Reading a tar archive (ustar, with GNU `L` and pax `path` long names) into regular files and
 * directories, for installing a plugin offline from a `.tar.gz`/`.tgz`. Nothing else is taken:
 * links, devices and FIFOs are refused, and so is any name that is absolute or climbs with `..`,
 * so an archive can only ever write inside the directory it is unpacked into.
 */

export interface TarEntry {
  /** Relative, `/`-separated, without `./` or a trailing slash. */
  readonly path: string;
  readonly kind: "file" | "dir";
  readonly mode: number;
  readonly bytes: Uint8Array;
}

const BLOCK = 512;

function text(bytes: Uint8Array, start: number, length: number): string {
  const slice = bytes.subarray(start, start + length);
  const end = slice.indexOf(0);
  return new TextDecoder().decode(end < 0 ? slice : slice.subarray(0, end));
}

function octal(bytes: Uint8Array, start: number, length: number): number {
  const value = text(bytes, start, length).trim();
  return value === "" ? 0 : parseInt(value, 8);
}

/** `name` made relative and checked; undefined for the archive root itself. */
function safePath(name: string): { ok: true; path: string | undefined } | { ok: false; error: string } {
  const parts = name.split("/").filter((part) => part !== "" && part !== ".");
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name) || name.includes("\\"))
    return { ok: false, error: `absolute or Windows path in the archive: ${JSON.stringify(name)}` };
  if (parts.includes("..")) return { ok: false, error: `path climbing out of the archive: ${JSON.stringify(name)}` };
  return { ok: true, path: parts.length === 0 ? undefined : parts.join("/") };
}

function paxPath(data: Uint8Array): string | undefined {
  for (const record of new TextDecoder().decode(data).split("\n")) {
    const match = /^\d+ path=(.*)$/.exec(record);
    if (match) return match[1];
  }
  return undefined;
}

/** Every file and directory of `archive`, or the first reason it cannot be unpacked. */
export function readTar(archive: Uint8Array): { ok: true; entries: TarEntry[] } | { ok: false; error: string } {
  const entries: TarEntry[] = [];
  let longName: string | undefined;
  for (let at = 0; at + BLOCK <= archive.length; ) {
    const header = archive.subarray(at, at + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 0);
    const prefix = text(header, 345, 155);
    const data = archive.subarray(at + BLOCK, at + BLOCK + size);
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (data.length < size) return { ok: false, error: "truncated archive" };
    if (type === "L" || type === "x") {
      longName = type === "L" ? text(data, 0, data.length) : paxPath(data);
      continue;
    }
    if (type === "g") continue;
    const name = longName ?? (prefix !== "" ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
    longName = undefined;
    const checked = safePath(name);
    if (!checked.ok) return checked;
    if (type === "5") {
      if (checked.path !== undefined) entries.push({ path: checked.path, kind: "dir", mode: octal(header, 100, 8), bytes: new Uint8Array() });
      continue;
    }
    if (type !== "0" && type !== "\0" && type !== "7")
      return {
        ok: false,
        error: `${JSON.stringify(name)} is a ${type === "1" || type === "2" ? "link" : "special file"}; a plugin archive may hold only files and directories`,
      };
    if (checked.path === undefined) return { ok: false, error: `an entry without a name` };
    entries.push({ path: checked.path, kind: "file", mode: octal(header, 100, 8), bytes: data.slice() });
  }
  return { ok: true, entries };
}
