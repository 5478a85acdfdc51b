/**
 * The few libc calls no runtime API offers, through `bun:ffi` (Bun on Linux only): prctl for the
 * child subreaper, memfd_create and execve for moving credentials out of the initial environment.
 * Null on Deno, Node, non-Linux systems, or when no libc can be opened; callers then say what they
 * cannot do. Loading costs well under a millisecond (BENCHMARKS.md).
 */

export interface Libc {
  prctl(option: number, arg2: number): number;
  /** A memory file without MFD_CLOEXEC, so it survives execve; -1 on failure. */
  memfdCreate(name: string): number;
  /** Replaces the process image; returns only on failure (-1). */
  execve(path: string, argv: readonly string[], envp: readonly string[]): number;
}

export type LibcResult = { readonly ok: true; readonly libc: Libc } | { readonly ok: false; readonly reason: string };

let cached: LibcResult | null = null;

/** NUL-terminated UTF-8. */
function cString(text: string): Buffer {
  return Buffer.from(`${text}\0`, "utf8");
}

export async function loadLibc(): Promise<LibcResult> {
  if (cached !== null) return cached;
  cached = await open();
  return cached;
}

async function open(): Promise<LibcResult> {
  if (process.platform !== "linux") return { ok: false, reason: `not Linux (${process.platform})` };
  if (typeof Reflect.get(globalThis, "Bun") === "undefined") return { ok: false, reason: "needs Bun's FFI (running on Deno or Node)" };
  let ffi: typeof import("bun:ffi");
  try {
    ffi = await import("bun:ffi");
  } catch (error) {
    return { ok: false, reason: `bun:ffi unavailable: ${error instanceof Error ? error.message : String(error)}` };
  }
  const { FFIType, dlopen, ptr } = ffi;
  const symbols = {
    prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
    memfd_create: { args: [FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  } as const;
  // glibc, then musl (Alpine), then the unversioned development name.
  for (const name of ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"]) {
    let lib: ReturnType<typeof dlopen<typeof symbols>>;
    try {
      lib = dlopen(name, symbols);
    } catch {
      continue;
    }
    const s = lib.symbols;
    /** A NULL-terminated array of pointers to C strings; `keep` holds the buffers until the call returns. */
    const pointerArray = (items: readonly string[], keep: Buffer[]): BigUint64Array => {
      const out = new BigUint64Array(items.length + 1);
      items.forEach((item, index) => {
        const buffer = cString(item);
        keep.push(buffer);
        out[index] = BigInt(ptr(buffer));
      });
      return out;
    };
    return {
      ok: true,
      libc: {
        prctl: (option, arg2) => s.prctl(option, arg2, 0, 0, 0),
        memfdCreate: (memName) => s.memfd_create(cString(memName), 0),
        execve: (path, argv, envp) => {
          const keep: Buffer[] = [];
          return s.execve(cString(path), pointerArray(argv, keep), pointerArray(envp, keep));
        },
      },
    };
  }
  return { ok: false, reason: "no libc could be opened" };
}
