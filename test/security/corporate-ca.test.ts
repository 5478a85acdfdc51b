/**
 * Corporate network: a provider behind TLS signed by a private CA (as a TLS-inspecting proxy or an
 * internal gateway presents). Refused without the CA; trusted with NODE_EXTRA_CA_CERTS or
 * SSL_CERT_FILE naming it. The CA and the server certificate are made with OpenSSL per run; the
 * server is a real HTTPS server on 127.0.0.1 speaking the OpenAI streaming protocol.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeWorld, runCliAsync } from "../support/cli.ts";
import { renderOpenAI } from "../support/fake-openai.ts";

const dir = mkdtempSync(join(tmpdir(), "agent-corp-ca-"));
let server: Server;
let url = "";

function openssl(args: string[]): void {
  const run = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${run.stderr}`);
}

beforeAll(async () => {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  openssl(["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Test Corp Root CA"]);
  openssl(["req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"]);
  writeFileSync(join(dir, "san.ext"), "subjectAltName=IP:127.0.0.1\n");
  openssl([
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.pem",
    "-days",
    "2",
    "-extfile",
    "san.ext",
  ]);
  server = createServer({ key: readFileSync(join(dir, "server.key")), cert: readFileSync(join(dir, "server.pem")) }, (req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(renderOpenAI({ text: "hello over corporate TLS" }).join(""));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe("a provider behind a private CA", () => {
  const run = (extra: Record<string, string>) => {
    const w = makeWorld();
    return runCliAsync(w, ["run", "--provider", "openai", "--base-url", url, "--model", "m", "--no-session", "hi"], { env: w.env(extra) });
  };

  test("is refused without the CA", async () => {
    const r = await run({});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("TLS error");
  });

  test("is trusted with NODE_EXTRA_CA_CERTS", async () => {
    const r = await run({ NODE_EXTRA_CA_CERTS: join(dir, "ca.pem") });
    expect(r.stdout).toContain("hello over corporate TLS");
    expect(r.code).toBe(0);
  });

  test("is trusted with SSL_CERT_FILE", async () => {
    const r = await run({ SSL_CERT_FILE: join(dir, "ca.pem") });
    expect(r.stdout).toContain("hello over corporate TLS");
    expect(r.code).toBe(0);
  });
});
