/**
 * Redaction throughput (DESIGN.md performance table): 1 MiB realistic inputs (code, logs, JSON)
 * and 1 MiB adversarial inputs, median ms and MB/s, and the 2 MiB / 1 MiB time ratio that shows
 * linear growth. Run: `npx bun bench/redact.ts`. Prints a markdown table. Each input is redacted
 * WARMUP times untimed, then RUNS times timed; the table shows the median.
 * `REDACT_MODULE=/abs/path/redact.ts` measures another copy of the code instead (a baseline copy
 * of an older commit, run alternately with this one for a before/after table).
 */
export {};
const redactModule: typeof import("../src/hooks/secrets/redact.ts") = await import(process.env.REDACT_MODULE ?? "../src/hooks/secrets/redact.ts");
const { redactPayload, redactText } = redactModule;

const MIB = 1024 * 1024;
const RUNS = 11;
/** Untimed runs first, so the medians measure JIT-compiled steady state, as in a long session. */
const WARMUP = 5;

function fill(unit: string, bytes: number): string {
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
}

const CODE = `export async function handler(req: Request): Promise<Response> {
  const url = new URL(req.url); // parse once
  const apiKey = process.env.API_KEY ?? "";
  if (!url.searchParams.has("id")) return new Response("missing id", { status: 400 });
  const rows = await db.query("select * from users where id = $1", [url.searchParams.get("id")]);
  return Response.json({ rows, count: rows.length, token_type: "bearer", max_tokens: 4096 });
}
`;
const LOG = `2024-05-01T10:22:31.123Z INFO  http request method=GET path=/v1/items status=200 duration_ms=12 request_id=7e48ba9b-897e-4575-b545-8564e50b8853
2024-05-01T10:22:31.456Z WARN  retrying upstream=https://api.example.com/v1/forecast?city=Oslo&units=metric attempt=2 sha=261e0e729b91a8bfe1862223bcf8d4695eb7c32b
2024-05-01T10:22:32.001Z DEBUG cache hit key=user:42:profile ttl=300 size=2048 node_id=C_kwDOAgOExPq66cHJECUyccWVY
`;
const JSON_TEXT = `{"id":"msg_01CgIpCsEvU8fPB6uTvIxcHj","model":"claude-sonnet-4-20250514","usage":{"input_tokens":2048,"output_tokens":512},"content":[{"type":"text","text":"Run \\"npm test\\" then check src/index.ts:42"}],"integrity":"sha512-ltpPsR/ydsivjHVe+jnblTGCO5OaXnUyxJq2ajk0aVG1tEQ10o0F9J+NBMaugUPsOTlVkbMuIbtUi9NQuL3uug=="}
`;
const MIXED_WITH_SECRETS = `${CODE}export OPENAI_API_KEY=sk-proj-QKzTlDDFKarljOAOaKT0W3jS9t-fb_863kgu4zmc6Auq
${LOG}password = "K2uUp3#V_2bY%=AOw=tKc=8u"
${JSON_TEXT}`;

const realistic: Record<string, (bytes: number) => string> = {
  code: (b) => fill(CODE, b),
  logs: (b) => fill(LOG, b),
  json: (b) => fill(JSON_TEXT, b),
  "mixed, with secrets": (b) => fill(MIXED_WITH_SECRETS, b),
};

const adversarial: Record<string, (bytes: number) => string> = {
  "`key=` repeated": (b) => fill("key=", b),
  "`sk-` repeated": (b) => fill("sk-", b),
  "`a` repeated": (b) => fill("a", b),
  "BEGIN key, no END": (b) => `-----BEGIN RSA PRIVATE KEY-----\n${fill("QUJDRA", b)}`,
  "`password=` repeated": (b) => fill("password=", b),
  "`eyJ` repeated": (b) => fill("eyJ", b),
  "`://` repeated": (b) => fill("://a:", b),
  "`Bearer ` repeated": (b) => fill("Bearer ", b),
  "`--token ` repeated": (b) => fill("--token ", b),
  "`:AA` repeated": (b) => fill("1234567:AA", b),
  "`cookie: ` repeated": (b) => fill("cookie: a=", b),
  // Many credential-named keys inside one long value: each separator would re-read the value.
  "1 KiB runs of `key=`": (b) => fill(`${"key=".repeat(255)} `, b),
  "1 KiB runs of `key=a1`": (b) => fill(`${"key=a1".repeat(170)} `, b),
  // The netrc and Discord bot token rules: their triggers, repeated.
  "`password ` repeated": (b) => fill("password ", b),
  "`login u password p ` repeated": (b) => fill("login u password p ", b),
  "Discord-like `<id>.abcdef.` repeated": (b) => fill("MTIzNDU2Nzg5MDEyMzQ1Njc4.abcdef.", b),
  "`a.b.` dotted words": (b) => fill("a.b.c.d.e.f.", b),
};

function medianMs(run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function row(name: string, make: (bytes: number) => string): string {
  const one = make(MIB);
  const two = make(2 * MIB);
  for (let i = 0; i < WARMUP; i++) {
    redactText(one);
    redactText(two);
  }
  const msOne = medianMs(() => redactText(one));
  const msTwo = medianMs(() => redactText(two));
  const mbPerSecond = 1 / (msOne / 1000);
  return `| ${name} | ${msOne.toFixed(2)} | ${mbPerSecond.toFixed(0)} | ${(msTwo / msOne).toFixed(2)} |`;
}

const lines = [
  "| input (1 MiB) | median ms | MiB/s | 2 MiB / 1 MiB |",
  "| --- | ---: | ---: | ---: |",
  ...Object.entries(realistic).map(([name, make]) => row(`realistic: ${name}`, make)),
  ...Object.entries(adversarial).map(([name, make]) => row(`adversarial: ${name}`, make)),
];

let deep: unknown = "leaf sk-proj-QKzTlDDFKarljOAOaKT0W3jS9t-fb_863kgu4zmc6Auq";
for (let i = 0; i < 10_000; i++) deep = { nested: deep };
lines.push(`| payload tree 10,000 levels deep | ${medianMs(() => redactPayload(deep, { envValues: [] })).toFixed(2)} | — | — |`);

console.log(lines.join("\n"));
