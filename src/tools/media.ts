/**
 * Recognises images and PDFs by their first bytes (never by the file name), so `read` can refuse
 * them with a message that says what the file is instead of "binary file". A PDF need not hold a
 * NUL byte early, so without this it could be shown as text.
 */

const SIGNATURES: ReadonlyArray<{ readonly kind: string; readonly at?: number; readonly bytes: readonly number[] }> = [
  { kind: "PNG image", bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { kind: "JPEG image", bytes: [0xff, 0xd8, 0xff] },
  { kind: "GIF image", bytes: [0x47, 0x49, 0x46, 0x38] },
  { kind: "WebP image", at: 8, bytes: [0x57, 0x45, 0x42, 0x50] },
  { kind: "BMP image", bytes: [0x42, 0x4d] },
  { kind: "TIFF image", bytes: [0x49, 0x49, 0x2a, 0x00] },
  { kind: "TIFF image", bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { kind: "ICO image", bytes: [0x00, 0x00, 0x01, 0x00] },
  { kind: "AVIF/HEIC image", at: 4, bytes: [0x66, 0x74, 0x79, 0x70] },
  { kind: "PDF document", bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
];

function startsWith(data: Uint8Array, at: number, bytes: readonly number[]): boolean {
  if (data.byteLength < at + bytes.length) return false;
  return bytes.every((byte, i) => data[at + i] === byte);
}

/** `PNG image`, `PDF document`, … or undefined for anything else. */
export function mediaKind(data: Uint8Array): string | undefined {
  for (const signature of SIGNATURES) {
    if (!startsWith(data, signature.at ?? 0, signature.bytes)) continue;
    // "BM" alone starts plenty of text files; a BMP's header also gives its own size.
    if (signature.kind === "BMP image" && !bmpHeaderFits(data)) continue;
    // WebP and ISO media files both need their container tag too.
    if (signature.kind === "WebP image" && !startsWith(data, 0, [0x52, 0x49, 0x46, 0x46])) continue;
    if (signature.kind === "AVIF/HEIC image" && !isImageBrand(data)) continue;
    return signature.kind;
  }
  return undefined;
}

function bmpHeaderFits(data: Uint8Array): boolean {
  if (data.byteLength < 26) return false;
  const size = (data[2] ?? 0) | ((data[3] ?? 0) << 8) | ((data[4] ?? 0) << 16) | ((data[5] ?? 0) << 24);
  return size === data.byteLength && data[6] === 0 && data[7] === 0 && data[8] === 0 && data[9] === 0;
}

function isImageBrand(data: Uint8Array): boolean {
  const brand = new TextDecoder().decode(data.subarray(8, 12));
  return ["avif", "avis", "heic", "heix", "mif1", "msf1"].includes(brand);
}
