/**
 * `npm run release`: every release target into dist/release/, then SHA256SUMS, the CycloneDX SBOM
 * and, with a key in the environment, SHA256SUMS.minisig. docs/install.md explains each file.
 *
 *   bun scripts/release.ts [--targets=linux-x64,windows-x64] [--out=DIR] [--runtime=TARGET=FILE]…
 *                          [--reproduce] [--generate-key=DIR]
 *
 * Bun downloads each foreign runtime (`@oven/bun-<target>` from the npm registry, ignoring npm's
 * registry settings). An air-gapped builder hands it over instead: `--runtime=linux-arm64=FILE` or
 * `AGENT_BUN_RUNTIMES=DIR` holding `<target>` files (a bun executable, or the `.tgz` that
 * `npm pack @oven/bun-linux-aarch64@<bun version>` writes). `--reproduce` builds everything a second
 * time in a scratch folder and fails unless every artefact is byte-identical.
 * Signing: AGENT_SIGNING_KEY holds an Ed25519 PKCS#8 PEM (or AGENT_SIGNING_KEY_FILE names one);
 * `--generate-key=DIR` writes a new pair (agent-release.key, agent-release.pub).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { build, buildInfoFor, sourceStamp } from "../build.ts";
import { generateSigningKey, loadPrivateKey, publicKeyFile, signMinisign } from "./minisign.ts";
import { cycloneDx } from "./sbom.ts";

/** Release name → Bun target. */
export const TARGETS: Record<string, string> = {
  "linux-x64": "bun-linux-x64",
  "linux-arm64": "bun-linux-arm64",
  "linux-x64-musl": "bun-linux-x64-musl",
  "darwin-x64": "bun-darwin-x64",
  "darwin-arm64": "bun-darwin-arm64",
  "windows-x64": "bun-windows-x64",
};

/** Targets whose bytecode build scripts/smoke-platforms.sh runs (natively or under qemu). */
const BYTECODE_TARGETS = new Set(["linux-x64", "linux-arm64"]);

/** npm's name for a target's runtime package (Bun says aarch64 where we say arm64). */
const npmRuntimeName = (name: string): string => `@oven/bun-${name.replace("arm64", "aarch64")}`;

export const artefactName = (name: string): string => `agent-${name}${name.startsWith("windows") ? ".exe" : ""}`;

function fail(message: string): never {
  console.error(`release: ${message}`);
  process.exit(1);
}

function option(args: string[], name: string): string | undefined {
  return args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** A local runtime for `name`: `--runtime=NAME=FILE`, else `$AGENT_BUN_RUNTIMES/NAME`; a .tgz is unpacked. */
function localRuntime(args: string[], name: string, scratch: string): string | undefined {
  const given = args
    .filter((arg) => arg.startsWith("--runtime="))
    .map((arg) => arg.slice("--runtime=".length))
    .find((arg) => arg.startsWith(`${name}=`))
    ?.slice(name.length + 1);
  const dir = process.env.AGENT_BUN_RUNTIMES;
  const file = given ?? (dir !== undefined ? [join(dir, name), join(dir, `${name}.tgz`)].find((path) => existsSync(path)) : undefined);
  if (file === undefined) return undefined;
  if (!existsSync(file)) fail(`--runtime for ${name}: ${file} does not exist`);
  if (!file.endsWith(".tgz")) return resolve(file);
  const into = join(scratch, `runtime-${name}`);
  mkdirSync(into, { recursive: true });
  const untar = spawnSync("tar", ["-xzf", file, "-C", into], { stdio: "inherit" });
  if (untar.status !== 0) fail(`cannot unpack ${file} (expected the .tgz of npm pack ${npmRuntimeName(name)})`);
  const bin = ["bun", "bun.exe"].map((exe) => join(into, "package", "bin", exe)).find((path) => existsSync(path));
  if (bin === undefined) fail(`${file} holds no package/bin/bun: expected the .tgz of npm pack ${npmRuntimeName(name)}`);
  chmodSync(bin, 0o755);
  return bin;
}

export function sha256File(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

function buildAll(names: string[], out: string, args: string[], scratch: string): string[] {
  const metafiles: string[] = [];
  for (const name of names) {
    const metafile = join(scratch, `meta-${name}-${basename(out)}.json`);
    const executablePath = localRuntime(args, name, scratch);
    console.log(`\n== ${name}${executablePath ? ` (runtime: ${executablePath})` : ""} ==`);
    const code = build({
      entry: "src/main.ts",
      outfile: join(out, artefactName(name)),
      target: TARGETS[name],
      bytecode: BYTECODE_TARGETS.has(name),
      metafile,
      executablePath,
      buildInfo: buildInfoFor(TARGETS[name]),
    });
    if (code !== 0)
      fail(
        `${name} failed (bun build exit ${code})${executablePath ? "" : `; offline, pass --runtime=${name}=FILE (npm pack ${npmRuntimeName(name)}@${Bun.version})`}`,
      );
    metafiles.push(metafile);
  }
  return metafiles;
}

function writeSums(out: string, files: string[]): string {
  const text = files.map((file) => `${sha256File(join(out, file))}  ${file}\n`).join("");
  writeFileSync(join(out, "SHA256SUMS"), text);
  return text;
}

function signSums(out: string, sums: string, date: string): void {
  const file = process.env.AGENT_SIGNING_KEY_FILE;
  const pem = process.env.AGENT_SIGNING_KEY ?? (file !== undefined ? readFileSync(file, "utf8") : undefined);
  if (pem === undefined || pem.trim() === "") {
    console.warn("release: WARNING: no AGENT_SIGNING_KEY or AGENT_SIGNING_KEY_FILE; SHA256SUMS is not signed");
    return;
  }
  let key;
  try {
    key = loadPrivateKey(pem);
  } catch (error) {
    fail(`AGENT_SIGNING_KEY: ${(error as Error).message} (expected an Ed25519 PKCS#8 PEM; make one with --generate-key=DIR)`);
  }
  const comment = `file:SHA256SUMS agent ${pkg.version} ${sourceStamp().commit} ${date}`;
  writeFileSync(join(out, "SHA256SUMS.minisig"), signMinisign(Buffer.from(sums), key, comment));
  writeFileSync(join(out, "agent-release.pub"), publicKeyFile(key));
  console.log("signed SHA256SUMS → SHA256SUMS.minisig (public key: agent-release.pub)");
}

function reproduce(names: string[], out: string, args: string[], scratch: string): void {
  const again = join(scratch, "rebuild", "release");
  mkdirSync(again, { recursive: true });
  buildAll(names, again, args, scratch);
  const differing = names.map(artefactName).filter((file) => sha256File(join(out, file)) !== sha256File(join(again, file)));
  if (differing.length > 0) fail(`not reproducible: ${differing.join(", ")} differ between two builds`);
  console.log(`reproducible: ${names.length} artefacts byte-identical across two builds`);
}

function main(args: string[]): void {
  const keyDir = option(args, "generate-key");
  if (keyDir !== undefined) {
    mkdirSync(keyDir, { recursive: true });
    const pair = generateSigningKey();
    writeFileSync(join(keyDir, "agent-release.key"), pair.privatePem, { mode: 0o600 });
    writeFileSync(join(keyDir, "agent-release.pub"), pair.publicFile);
    console.log(`wrote ${join(keyDir, "agent-release.key")} (secret) and ${join(keyDir, "agent-release.pub")}`);
    return;
  }
  const names = option(args, "targets")?.split(",") ?? Object.keys(TARGETS);
  const unknown = names.filter((name) => TARGETS[name] === undefined);
  if (unknown.length > 0) fail(`--targets: unknown ${unknown.join(", ")}; known: ${Object.keys(TARGETS).join(", ")}`);
  const out = resolve(option(args, "out") ?? "dist/release");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const scratch = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "agent-release-"));
  try {
    const metafiles = buildAll(names, out, args, scratch);
    const date = sourceStamp().date;
    const sbom = cycloneDx(
      metafiles.map((file) => JSON.parse(readFileSync(file, "utf8"))),
      {
        version: pkg.version,
        date,
        bunVersion: Bun.version,
        artefacts: names.map((name) => ({ name: artefactName(name), sha256: sha256File(join(out, artefactName(name))) })),
      },
    );
    writeFileSync(join(out, "agent.cdx.json"), `${JSON.stringify(sbom, null, 2)}\n`);
    for (const script of ["install.sh", "install.ps1"]) copyFileSync(script, join(out, script));
    const sums = writeSums(out, [...names.map(artefactName), "agent.cdx.json", "install.sh", "install.ps1"]);
    signSums(out, sums, date);
    if (args.includes("--reproduce")) reproduce(names, out, args, scratch);
    console.log(`\n${out}:\n${readdirSync(out).sort().join("\n")}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.main) main(process.argv.slice(2));
