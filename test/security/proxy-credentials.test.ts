/**
 * Corporate network: a proxy URL with a user and password in HTTP_PROXY. The credential hand-over
 * takes it out of the agent's initial environment like any credential, yet the agent's own requests
 * still go through the proxy with its credentials, and the bash tool (a child of the agent) finds the
 * password neither in its env nor in /proc/<agent pid>/environ. The proxy is a real HTTP server on
 * 127.0.0.1 taking absolute-form requests, as a forward proxy does.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { makeWorld, runCliAsync } from "../support/cli.ts";
import { renderOpenAI, startFakeServer, type FakeServer } from "../support/fake-openai.ts";

let proxy: FakeServer | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

describe("HTTP_PROXY with credentials", () => {
  test("requests go through the proxy with Proxy-Authorization; no child sees the password", async () => {
    const probe = `echo "environ:$(tr '\\0' '\\n' < /proc/$PPID/environ | grep -c s3cr[e]t) env:$(env | grep -c s3cr[e]t)"`;
    proxy = await startFakeServer(
      "http://model.invalid/v1/chat/completions",
      [{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: probe } }] }, { text: "done via the proxy" }],
      renderOpenAI,
    );
    const w = makeWorld();
    const env = w.env({ HTTP_PROXY: `http://alice:s3cret@${proxy.url.replace("http://", "")}`, NO_PROXY: "" });
    const r = await runCliAsync(
      w,
      ["run", "--provider", "openai", "--base-url", "http://model.invalid/v1", "--model", "m", "--allow", "bash", "--no-session", "probe"],
      { env },
    );
    expect(r.stderr).not.toContain("s3cret");
    expect(r.stdout).toContain("done via the proxy");
    expect(r.code).toBe(0);
    expect(proxy.headers.map((h) => h["proxy-authorization"])).toEqual([
      `Basic ${Buffer.from("alice:s3cret").toString("base64")}`,
      `Basic ${Buffer.from("alice:s3cret").toString("base64")}`,
    ]);
    expect(JSON.stringify(proxy.requests[1])).toContain("environ:0 env:0");
  });
});
