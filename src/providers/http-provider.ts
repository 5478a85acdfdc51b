/**
 * The one provider class behind `openai` and `anthropic`: both POST a JSON body to an SSE endpoint
 * through http.ts and decode the stream with their own wire decoder. What differs between them (id,
 * endpoint, auth header, body, decoder, the prefix of generated call ids) is a `WireDialect`.
 */
import { DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_RETRY, type HttpRequest } from "./http.ts";
import { streamSse, type WireDecoder } from "./sse-stream.ts";
import type { Provider, ProviderEvent, ProviderRequest, RetryOptions } from "./types.ts";

export interface HttpProviderOptions {
  model: string;
  baseUrl: string;
  apiKey: string | undefined;
  hosted: boolean;
  fetch: typeof fetch;
  retry?: RetryOptions;
  requestTimeoutMs?: number;
  maxTokens?: number;
}

export interface WireDialect {
  readonly id: "openai" | "anthropic";
  /** Environment variable holding the key, named in 401/403 fixes. */
  readonly keyVariable: string;
  /** Prefix of the ids given to calls the server sent without one. */
  readonly callIdPrefix: string;
  endpoint(baseUrl: string): string;
  /** Request headers; the key goes only into the header this API reads it from. */
  headers(apiKey: string | undefined): Record<string, string>;
  body(model: string, request: ProviderRequest, maxTokens: number | undefined): string;
  decoder(nextCallId: () => string): WireDecoder;
}

export class HttpProvider implements Provider {
  readonly id: WireDialect["id"];
  readonly model: string;
  readonly #dialect: WireDialect;
  readonly #options: HttpProviderOptions;
  #generatedIds = 0;

  constructor(dialect: WireDialect, options: HttpProviderOptions) {
    this.id = dialect.id;
    this.model = options.model;
    this.#dialect = dialect;
    this.#options = options;
  }

  stream(request: ProviderRequest): AsyncIterable<ProviderEvent> {
    const options = this.#options;
    const dialect = this.#dialect;
    const http: HttpRequest = {
      providerName: dialect.id,
      url: dialect.endpoint(options.baseUrl),
      headers: dialect.headers(options.apiKey),
      body: dialect.body(request.model ?? this.model, request, options.maxTokens),
      fetch: options.fetch,
      retry: options.retry ?? DEFAULT_RETRY,
      timeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      secrets: options.apiKey ? [options.apiKey] : [],
      hosted: options.hosted,
      keyVariable: dialect.keyVariable,
    };
    if (request.signal) http.signal = request.signal;
    return streamSse(
      http,
      dialect.decoder(() => `${dialect.callIdPrefix}${++this.#generatedIds}`),
    );
  }
}
