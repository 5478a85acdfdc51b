/**
 * Combined stdout+stderr of a `bash` call, in arrival order, bounded: the first HEAD bytes and the
 * last TAIL bytes are kept (errors tend to be at the end), the middle is dropped with a note.
 * Memory stays bounded however much the command prints.
 */
export const BASH_OUTPUT_HEAD_BYTES = 128 * 1024;
export const BASH_OUTPUT_TAIL_BYTES = 128 * 1024;

export class OutputCollector {
  private head: Uint8Array[] = [];
  private headBytes = 0;
  private tail: Uint8Array[] = [];
  private tailBytes = 0;
  private totalBytes = 0;

  constructor(
    private readonly headMax = BASH_OUTPUT_HEAD_BYTES,
    private readonly tailMax = BASH_OUTPUT_TAIL_BYTES,
  ) {}

  push(chunk: Uint8Array): void {
    this.totalBytes += chunk.byteLength;
    let rest = chunk;
    if (this.headBytes < this.headMax) {
      const take = Math.min(this.headMax - this.headBytes, rest.byteLength);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.byteLength === 0) return;
    // Copy: the stream may reuse its buffer.
    this.tail.push(rest.slice());
    this.tailBytes += rest.byteLength;
    while (this.tailBytes > this.tailMax) {
      const first = this.tail[0];
      if (first === undefined) break;
      const excess = this.tailBytes - this.tailMax;
      if (first.byteLength <= excess) {
        this.tail.shift();
        this.tailBytes -= first.byteLength;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  get bytes(): number {
    return this.totalBytes;
  }

  get truncated(): boolean {
    return this.totalBytes > this.headBytes + this.tailBytes;
  }

  /** Decoded text (invalid UTF-8 becomes U+FFFD), with a note where bytes were dropped. */
  text(): string {
    const head = decode(this.head);
    const tail = decode(this.tail);
    if (!this.truncated) return head + tail;
    const omitted = this.totalBytes - this.headBytes - this.tailBytes;
    return `${head}\n[... output truncated: ${omitted} bytes omitted of ${this.totalBytes} ...]\n${tail}`;
  }
}

function decode(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder();
  let out = "";
  for (const chunk of chunks) out += decoder.decode(chunk, { stream: true });
  return out + decoder.decode();
}

/** A `bash` output longer than this (UTF-8 bytes) goes to a file; the conversation gets a preview. */
export const BASH_INLINE_MAX_BYTES = 16 * 1024;
/** The preview: about this many characters from the start and from the end, cut at line ends. */
export const BASH_PREVIEW_HEAD_CHARS = 3 * 1024;
export const BASH_PREVIEW_TAIL_CHARS = 1024;

/** Where a large output goes: `outputDir` (created 0700 on first use), one file per call. */
export interface OutputFiles {
  readonly dir: string;
  write(dir: string, name: string, text: string): void;
  mkdir(dir: string): void;
  randomName(): string;
}

/** The first `chars` characters, ended at the last line break in their second half when there is one. */
function headOf(text: string, chars: number): string {
  const head = text.slice(0, chars);
  const cut = head.lastIndexOf("\n");
  return cut >= chars / 2 ? head.slice(0, cut + 1) : head;
}

/** The last `chars` characters, started after the first line break in their first half when there is one. */
function tailOf(text: string, chars: number): string {
  const tail = text.slice(-chars);
  const cut = tail.indexOf("\n");
  return cut >= 0 && cut < chars / 2 ? tail.slice(cut + 1) : tail;
}

/**
 * `text` when it fits BASH_INLINE_MAX_BYTES; else the text goes to a new file and the result is a
 * preview (head, a line naming the file and how to page it with `read`, tail). Null file: inline.
 * `rawBytes`: the output's size as it arrived (the collector's count), if known.
 * A failed write keeps the text inline (as before files existed) and says nothing: never worse.
 */
export function boundOutput(text: string, files: OutputFiles | undefined, rawBytes?: number): { content: string; path: string | null } {
  // The collector's byte count when given: no second encoding of every output just to measure it.
  const bytes = rawBytes ?? new TextEncoder().encode(text).byteLength;
  if (files === undefined || bytes <= BASH_INLINE_MAX_BYTES) return { content: text, path: null };
  const name = `bash-${files.randomName()}.txt`;
  const path = `${files.dir.replace(/\/+$/, "")}/${name}`;
  try {
    files.mkdir(files.dir);
    files.write(files.dir, name, text);
  } catch {
    return { content: text, path: null };
  }
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  // Past the collector's bounds the file holds its head and tail with the collector's own note between.
  const note = `[output too long for the conversation (${bytes} bytes, ${lines} lines): it is saved in ${path}; page through it with the read tool (file_path, offset, limit)]`;
  const head = headOf(text, BASH_PREVIEW_HEAD_CHARS);
  const tail = tailOf(text, BASH_PREVIEW_TAIL_CHARS);
  return { content: `${head.replace(/\n?$/, "\n")}${note}\n…\n${tail}`, path };
}
