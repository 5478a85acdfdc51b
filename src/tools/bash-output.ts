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
