/**
 * minisign-format signatures with node:crypto (Ed25519 + BLAKE2b-512), so a release is signed with no
 * tool beyond Bun and verified with the stock `minisign -V`, with OpenSSL (install.sh does that when
 * minisign is absent), or with `verifyMinisign` below.
 *
 * Formats (minisign's own): the public key file is an untrusted comment line, then
 * base64("Ed" ‖ key id (8 bytes) ‖ Ed25519 public key (32)). The signature file is an untrusted comment,
 * base64("ED" ‖ key id ‖ Ed25519(BLAKE2b-512(file))), `trusted comment: …`, and
 * base64(Ed25519(signature ‖ trusted comment)). The secret key stays a PKCS#8 PEM (what OpenSSL and
 * node:crypto read), not minisign's scrypt-encrypted file: keep it in a secret store, not on disk.
 * The key id is the first 8 bytes of SHA-256 of the public key.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from "node:crypto";

const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export function rawPublicKey(key: KeyObject): Buffer {
  const der = key.export({ format: "der", type: "spki" });
  return der.subarray(der.length - 32);
}

function keyId(publicKey: Buffer): Buffer {
  return createHash("sha256").update(publicKey).digest().subarray(0, 8);
}

/** minisign prints the key id as the little-endian u64 in upper-case hex. */
function keyIdText(id: Buffer): string {
  return Buffer.from(id).reverse().toString("hex").toUpperCase();
}

export function generateSigningKey(): { privatePem: string; publicFile: string } {
  const { privateKey } = generateKeyPairSync("ed25519");
  return { privatePem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(), publicFile: publicKeyFile(privateKey) };
}

export function loadPrivateKey(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== "ed25519") throw new Error(`the signing key is ${key.asymmetricKeyType ?? "unknown"}, not ed25519`);
  return key;
}

export function publicKeyFile(privateKey: KeyObject): string {
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  const id = keyId(publicKey);
  return `untrusted comment: minisign public key ${keyIdText(id)}\n${Buffer.concat([Buffer.from("Ed"), id, publicKey]).toString("base64")}\n`;
}

export function signMinisign(data: Uint8Array, privateKey: KeyObject, trustedComment: string): string {
  if (/[\r\n]/.test(trustedComment)) throw new Error("a trusted comment is one line");
  const publicKey = rawPublicKey(createPublicKey(privateKey));
  const id = keyId(publicKey);
  const signature = sign(null, createHash("blake2b512").update(data).digest(), privateKey);
  const global = sign(null, Buffer.concat([signature, Buffer.from(trustedComment)]), privateKey);
  return [
    `untrusted comment: signature from agent release key ${keyIdText(id)}`,
    Buffer.concat([Buffer.from("ED"), id, signature]).toString("base64"),
    `trusted comment: ${trustedComment}`,
    global.toString("base64"),
    "",
  ].join("\n");
}

/** The base64 line of a minisign public key file, or the bare base64 key. */
function decodePublicKey(text: string): Buffer {
  const line =
    text
      .split("\n")
      .map((part) => part.trim())
      .find((part) => part !== "" && !part.startsWith("untrusted comment:")) ?? "";
  const bytes = Buffer.from(line, "base64");
  if (bytes.length !== 42 || bytes.subarray(0, 2).toString() !== "Ed") throw new Error("not a minisign Ed25519 public key");
  return bytes;
}

export function verifyMinisign(
  data: Uint8Array,
  signatureText: string,
  publicKeyText: string,
): { ok: true; trustedComment: string } | { ok: false; error: string } {
  const key = decodePublicKey(publicKeyText);
  const lines = signatureText.split("\n");
  const sig = Buffer.from(lines[1] ?? "", "base64");
  const trusted = lines[2] ?? "";
  if (sig.length !== 74 || !trusted.startsWith("trusted comment: ")) return { ok: false, error: "malformed signature file" };
  const algorithm = sig.subarray(0, 2).toString();
  if (!sig.subarray(2, 10).equals(key.subarray(2, 10))) return { ok: false, error: "signed with another key (key id differs)" };
  const publicKey = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, key.subarray(10)]), format: "der", type: "spki" });
  const signed = algorithm === "ED" ? createHash("blake2b512").update(data).digest() : Buffer.from(data);
  const signature = sig.subarray(10);
  if (!verify(null, signed, publicKey, signature)) return { ok: false, error: "signature does not match the file" };
  const comment = trusted.slice("trusted comment: ".length);
  const global = Buffer.from(lines[3] ?? "", "base64");
  if (!verify(null, Buffer.concat([signature, Buffer.from(comment)]), publicKey, global)) return { ok: false, error: "trusted comment was altered" };
  return { ok: true, trustedComment: comment };
}
