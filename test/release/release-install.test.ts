/**
 * `scripts/release.ts` for the host target (with the Bun runtime handed over as a local file, as an
 * air-gapped builder does), then `install.sh` run for real by /bin/sh from that folder: checksums
 * and the minisign signature checked with OpenSSL, with no download tool and no minisign on PATH.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, chmodSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "../support/cli.ts";
import { generateSigningKey, verifyMinisign } from "../../scripts/minisign.ts";
import { sha256File } from "../../scripts/release.ts";

const root = mkdtempSync(join(tmpdir(), "agent-release-test-"));
const release = join(root, "release");
const keys = generateSigningKey();
const otherKeys = generateSigningKey();
let log = "";
/** Each install copies and hashes a ~110 MB executable: minutes, not seconds, on a loaded machine. */
const INSTALL_TIMEOUT_MS = 180_000;

/** A PATH holding only the tools install.sh may use, plus curl and wget that record being called. */
function toolsDir(): string {
  const dir = join(root, "tools");
  if (existsSync(dir)) return dir;
  mkdirSync(dir);
  for (const tool of [
    "sh",
    "sed",
    "grep",
    "head",
    "tail",
    "awk",
    "cut",
    "dd",
    "cmp",
    "cp",
    "mv",
    "chmod",
    "mkdir",
    "mktemp",
    "rm",
    "dirname",
    "basename",
    "uname",
    "ls",
    "wc",
    "tr",
    "cat",
    "sha256sum",
    "openssl",
  ]) {
    const found = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
    if (found === "") throw new Error(`${tool} is not installed; install.sh's test needs it`);
    symlinkSync(found, join(dir, tool));
  }
  for (const tool of ["curl", "wget"]) {
    writeFileSync(join(dir, tool), `#!/bin/sh\necho "$0 $*" >> "${join(root, "network-calls")}"\nexit 1\n`);
    chmodSync(join(dir, tool), 0o755);
  }
  return dir;
}

/** The same tools plus the real curl: for `--from http://…`. */
function toolsWithCurl(): string {
  const dir = join(root, "tools-curl");
  if (existsSync(dir)) return dir;
  cpSync(toolsDir(), dir, { recursive: true, verbatimSymlinks: true });
  rmSync(join(dir, "curl"));
  symlinkSync(spawnSync("sh", ["-c", "command -v curl"], { encoding: "utf8" }).stdout.trim(), join(dir, "curl"));
  return dir;
}

function runInstall(tools: string, args: string[], home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  mkdirSync(home, { recursive: true });
  return new Promise((resolve) => {
    const child = spawn(join(tools, "sh"), [join(release, "install.sh"), ...args], {
      env: { PATH: tools, HOME: home, TMPDIR: process.env.TMPDIR ?? tmpdir() },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function install(args: string[], home: string): { code: number | null; stdout: string; stderr: string } {
  mkdirSync(home, { recursive: true });
  const run = spawnSync(join(toolsDir(), "sh"), [join(release, "install.sh"), ...args], {
    encoding: "utf8",
    env: { PATH: toolsDir(), HOME: home, TMPDIR: process.env.TMPDIR ?? tmpdir() },
    timeout: INSTALL_TIMEOUT_MS,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(() => {
  const run = spawnSync(process.execPath, ["scripts/release.ts", "--targets=linux-x64", `--out=${release}`, `--runtime=linux-x64=${process.execPath}`], {
    cwd: REPO,
    encoding: "utf8",
    env: { ...process.env, AGENT_SIGNING_KEY: keys.privatePem },
    timeout: 240_000,
  });
  log = run.stdout + run.stderr;
  if (run.status !== 0) throw new Error(`release failed:\n${log}`);
  writeFileSync(join(root, "release.pub"), keys.publicFile);
  writeFileSync(join(root, "other.pub"), otherKeys.publicFile);
}, 240_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("npm run release (host target, offline runtime)", () => {
  test("builds with the local runtime, lists every file in SHA256SUMS and signs it", () => {
    expect(log).toContain(`runtime: ${process.execPath}`);
    const sums = readFileSync(join(release, "SHA256SUMS"), "utf8").trim().split("\n");
    expect(sums.map((line) => line.split("  ")[1])).toEqual(["agent-linux-x64", "agent.cdx.json", "install.sh", "install.ps1"]);
    for (const line of sums) {
      const [hash, file] = line.split("  ");
      expect(sha256File(join(release, file ?? ""))).toBe(hash ?? "");
    }
    const verdict = verifyMinisign(readFileSync(join(release, "SHA256SUMS")), readFileSync(join(release, "SHA256SUMS.minisig"), "utf8"), keys.publicFile);
    expect(verdict).toMatchObject({ ok: true });
    expect(verifyMinisign(readFileSync(join(release, "SHA256SUMS")), readFileSync(join(release, "SHA256SUMS.minisig"), "utf8"), otherKeys.publicFile)).toEqual({
      ok: false,
      error: "signed with another key (key id differs)",
    });
  });

  test("the SBOM names the bundled npm packages with their installed versions, and the artefact's hash", () => {
    const sbom = JSON.parse(readFileSync(join(release, "agent.cdx.json"), "utf8"));
    expect(sbom.bomFormat).toBe("CycloneDX");
    const valibot = JSON.parse(readFileSync(join(REPO, "node_modules", "valibot", "package.json"), "utf8"));
    expect(sbom.components).toContainEqual(expect.objectContaining({ name: "valibot", version: valibot.version, purl: `pkg:npm/valibot@${valibot.version}` }));
    const artefact = sbom.components.find((c: { name: string }) => c.name === "agent-linux-x64");
    expect(artefact.hashes[0].content).toBe(sha256File(join(release, "agent-linux-x64")));
    expect(JSON.stringify(sbom)).not.toContain(REPO);
  });

  test("--version prints version, commit, build date and target", () => {
    const run = spawnSync(join(release, "agent-linux-x64"), ["--version"], { encoding: "utf8" });
    expect(run.stdout).toMatch(/^agent \d+\.\d+\.\d+ \(commit [0-9a-f]{12}(-dirty)?, built \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, linux-x64\)\n$/);
  });

  test("a runtime file that does not exist is one clear error", () => {
    const run = spawnSync(
      process.execPath,
      ["scripts/release.ts", "--targets=linux-x64", `--out=${join(root, "never")}`, "--runtime=linux-x64=/nonexistent/bun"],
      { cwd: REPO, encoding: "utf8" },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("--runtime for linux-x64: /nonexistent/bun does not exist");
  });
});

describe("install.sh", () => {
  test(
    "installs from the release folder after checking the signature (OpenSSL) and SHA-256, and never calls curl or wget",
    () => {
      const home = join(root, "home-ok");
      const r = install(["--from", release, "--to", join(home, "bin"), "--pubkey", join(root, "release.pub")], home);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("SHA256SUMS: signature ok\nagent-linux-x64: sha256 ok\n");
      expect(r.stdout).toMatch(/\nagent \d+\.\d+\.\d+ \(commit /);
      expect(sha256File(join(home, "bin", "agent"))).toBe(sha256File(join(release, "agent-linux-x64")));
      expect(existsSync(join(root, "network-calls"))).toBe(false);
    },
    INSTALL_TIMEOUT_MS,
  );

  test(
    "--from one file finds SHA256SUMS beside it; a file not listed there is refused",
    () => {
      const home = join(root, "home-file");
      const r = install(["--from", join(release, "agent-linux-x64"), "--to", join(home, "bin")], home);
      expect(r.code).toBe(0);
      const stray = join(root, "stray");
      mkdirSync(stray);
      copyFileSync(join(release, "SHA256SUMS"), join(stray, "SHA256SUMS"));
      writeFileSync(join(stray, "agent-renamed"), "x");
      const refused = install(["--from", join(stray, "agent-renamed"), "--to", join(home, "bin2")], home);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(`install.sh: agent-renamed is not listed in ${join(stray, "SHA256SUMS")}\n`);
      expect(existsSync(join(home, "bin2"))).toBe(false);
    },
    INSTALL_TIMEOUT_MS,
  );

  test(
    "a tampered executable is refused and nothing is installed; a SHA256SUMS rewritten to match fails the signature",
    () => {
      const tampered = join(root, "tampered");
      cpSync(release, tampered, { recursive: true });
      const binary = join(tampered, "agent-linux-x64");
      const bytes = readFileSync(binary);
      bytes[bytes.length - 100] = (bytes[bytes.length - 100] ?? 0) ^ 0xff;
      writeFileSync(binary, bytes);
      const home = join(root, "home-tampered");
      const r = install(["--from", tampered, "--to", join(home, "bin")], home);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`install.sh: ${binary}: SHA-256 ${sha256File(binary)} does not match SHA256SUMS`);
      expect(r.stderr).toContain("refusing to install");
      expect(existsSync(join(home, "bin"))).toBe(false);

      const sums = join(tampered, "SHA256SUMS");
      writeFileSync(sums, readFileSync(sums, "utf8").replace(/^[0-9a-f]{64}(?=  agent-linux-x64$)/m, sha256File(binary)));
      expect(install(["--from", tampered, "--to", join(home, "bin")], home).code).toBe(0);
      const signed = install(["--from", tampered, "--to", join(home, "bin-signed"), "--pubkey", join(root, "release.pub")], home);
      expect(signed.code).toBe(1);
      expect(signed.stderr).toBe("install.sh: SHA256SUMS: bad signature\n");
      expect(existsSync(join(home, "bin-signed"))).toBe(false);
      const wrongKey = install(["--from", release, "--to", join(home, "bin-other"), "--pubkey", join(root, "other.pub")], home);
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stderr).toBe("install.sh: SHA256SUMS: signed by another key (key id differs)\n");
    },
    INSTALL_TIMEOUT_MS,
  );

  test(
    "--from http://… downloads the file, SHA256SUMS and its signature, then checks them; a tampered download is refused",
    async () => {
      const served: string[] = [];
      let tamper = false;
      const server: Server = createServer((req, res) => {
        const name = (req.url ?? "").split("/").pop() ?? "";
        served.push(req.url ?? "");
        const path = join(release, name);
        if (!existsSync(path) || name === "") {
          res.writeHead(404).end();
          return;
        }
        const bytes = readFileSync(path);
        if (tamper && name === "agent-linux-x64") bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
        res.writeHead(200, { "content-length": String(bytes.length) }).end(bytes);
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
        const home = join(root, "home-url");
        const r = await runInstall(toolsWithCurl(), ["--from", url, "--to", join(home, "bin"), "--pubkey", join(root, "release.pub")], home);
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        expect(served).toEqual(["/v1/agent-linux-x64", "/v1/SHA256SUMS", "/v1/SHA256SUMS.minisig"]);
        expect(sha256File(join(home, "bin", "agent"))).toBe(sha256File(join(release, "agent-linux-x64")));
        tamper = true;
        const refused = await runInstall(toolsWithCurl(), ["--from", url, "--to", join(home, "bin-tampered")], home);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain("does not match SHA256SUMS");
        expect(existsSync(join(home, "bin-tampered"))).toBe(false);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
    INSTALL_TIMEOUT_MS,
  );
});
