/**
 * Audit export: hook decisions, hook runs and tool calls as OpenTelemetry log records over OTLP/HTTP
 * (JSON), to every `[audit.otlp]` endpoint of user or managed config. Built on the official
 * OpenTelemetry JS packages (sdk-logs, exporter-logs-otlp-http), imported only when an endpoint is
 * configured; docs/teams.md has their measured cost. What leaves the machine is redacted as a hook's
 * payload is (`payload = "redacted"`): tool inputs and metadata through the secret rules and the
 * stripped env values, tool output never, hook reasons through the text detector; prompts and model
 * text are not exported.
 */
import type { Runtime } from "../runtime/types.ts";
import type { SessionRecord } from "../session/records.ts";
import { redactPayload, redactText } from "./secrets/redact.ts";
import { expandEnvRefs } from "../util/env-refs.ts";

/** One `[audit.otlp]` destination (config/settings.ts `OtlpDestination` satisfies it). */
export interface OtlpTarget {
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly scope: string;
}

export interface AuditExporter {
  observe(record: SessionRecord, sessionId: string): void;
  /** Sends what is buffered and stops; bounded by `closeWithinMs`. */
  close(): Promise<void>;
}

export interface AuditOptions {
  readonly targets: readonly OtlpTarget[];
  /** Values of the variables stripped before hooks run (D18): never exported. */
  readonly strippedEnvValues: readonly string[];
  readonly serviceVersion?: string;
  readonly closeWithinMs?: number;
  /** Told once per destination whose headers name a missing variable, or whose export failed. */
  readonly onProblem?: (message: string) => void;
}

type Attributes = Record<string, string | number | boolean>;

interface LogEntry {
  readonly name: string;
  readonly severity: "INFO" | "WARN" | "ERROR";
  readonly attributes: Attributes;
}

const SEVERITY_NUMBER = { INFO: 9, WARN: 13, ERROR: 17 } as const;

function json(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

/** The log entry of a record, or null for records that are not exported. */
export function auditEntry(record: SessionRecord, stripped: readonly string[]): LogEntry | null {
  const redacted = (value: unknown): string => json(redactPayload(value, { envValues: stripped }));
  switch (record.type) {
    case "session_start":
      return {
        name: "agent.session_start",
        severity: "INFO",
        attributes: {
          "agent.cwd": redactText(record.cwd, stripped),
          "agent.provider": record.provider,
          "agent.model": record.model,
          "agent.source": record.source,
        },
      };
    case "session_end":
      return {
        name: "agent.session_end",
        severity: "INFO",
        attributes: { "agent.reason": record.reason, "agent.stop_reason": record.stop_reason, "agent.is_error": record.is_error },
      };
    case "tool_call":
      return {
        name: "agent.tool_call",
        severity: "INFO",
        attributes: { "tool.name": record.tool_name, "tool.call_id": record.tool_call_id, "tool.input": redacted(record.input) },
      };
    case "tool_result":
      return {
        name: "agent.tool_result",
        severity: record.success ? "INFO" : "WARN",
        attributes: {
          "tool.name": record.tool_name,
          "tool.call_id": record.tool_call_id,
          "tool.success": record.success,
          "tool.input": redacted(record.input),
          "tool.metadata": redacted(record.metadata),
        },
      };
    case "hook_lifecycle":
      if (record.status === "started") return null;
      return {
        name: "agent.hook_run",
        severity: record.status === "failed" ? "ERROR" : "INFO",
        attributes: {
          "hook.label": record.label,
          "hook.phase": record.phase,
          "hook.status": record.status,
          "hook.policy": record.policy,
          ...(record.category !== null ? { "hook.category": record.category } : {}),
          ...(record.elapsed_ms !== null ? { "hook.elapsed_ms": record.elapsed_ms } : {}),
          ...(record.tool_call_id !== null ? { "tool.call_id": record.tool_call_id } : {}),
          ...(record.message !== null ? { "hook.message": redactText(record.message, stripped) } : {}),
        },
      };
    case "hook_decision":
      return {
        name: "agent.hook_decision",
        severity: record.decision === "deny" || record.decision === "block" ? "WARN" : "INFO",
        attributes: {
          "hook.event": record.event,
          "hook.decision": record.decision,
          ...(record.reason !== null ? { "hook.reason": redactText(record.reason, stripped) } : {}),
          ...(record.decided_by !== null ? { "hook.decided_by": record.decided_by } : {}),
          ...(record.decided_by_scope !== null ? { "hook.decided_by_scope": record.decided_by_scope } : {}),
          ...(record.tool_call_id !== null ? { "tool.call_id": record.tool_call_id } : {}),
        },
      };
    default:
      return null;
  }
}

/** Header values with `${NAME}` filled from the agent's own environment (these are user or managed settings). */
function headersOf(target: OtlpTarget, env: Readonly<Record<string, string>>): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(target.headers)) {
    const expanded = expandEnvRefs(template, env);
    if (!expanded.ok) return `audit.otlp header ${name} names \${${expanded.missing}}, which is not set; nothing is exported to ${target.endpoint}`;
    out[name] = expanded.value;
  }
  return out;
}

/** Starts the exporter; resolves to null when no destination is usable. */
export async function createAuditExporter(runtime: Pick<Runtime, "env" | "sleep">, options: AuditOptions): Promise<AuditExporter | null> {
  const env = runtime.env();
  const usable: { url: string; headers: Record<string, string> }[] = [];
  for (const target of options.targets) {
    const headers = headersOf(target, env);
    if (typeof headers === "string") options.onProblem?.(headers);
    else usable.push({ url: target.endpoint, headers });
  }
  if (usable.length === 0) return null;
  const [{ LoggerProvider, BatchLogRecordProcessor }, { OTLPLogExporter }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/sdk-logs"),
    import("@opentelemetry/exporter-logs-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ "service.name": "agent", ...(options.serviceVersion ? { "service.version": options.serviceVersion } : {}) }),
    processors: usable.map(
      (target) => new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: target.url, headers: target.headers }), exportTimeoutMillis: 10_000 }),
    ),
  });
  const logger = provider.getLogger("agent.audit");
  return {
    observe(record, sessionId) {
      const entry = auditEntry(record, options.strippedEnvValues);
      if (entry === null) return;
      logger.emit({
        timestamp: new Date(record.timestamp),
        severityNumber: SEVERITY_NUMBER[entry.severity],
        severityText: entry.severity,
        eventName: entry.name,
        body: entry.name,
        attributes: { "agent.session_id": sessionId, ...entry.attributes },
      });
    },
    async close() {
      // A collector that hangs must not hold the agent's exit: the flush gets a bounded wait.
      await Promise.race([
        provider.shutdown().catch((error: unknown) => options.onProblem?.(`audit export failed: ${error instanceof Error ? error.message : String(error)}`)),
        runtime.sleep(options.closeWithinMs ?? 5000),
      ]);
    },
  };
}
