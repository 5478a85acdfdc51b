/**
 * The one error type thrown at boundaries. `src/cli/error-exit.ts` maps `code` to an exit status;
 * everything else returns failures as values.
 */
export type ErrorCode =
  | "usage" // bad CLI arguments → exit 2 (1 for `agent hooks test`, whose 2 means deny/block)
  | "config" // unreadable or invalid input named by the user → exit 1
  | "untrusted" // project hooks need trust (D17) → exit 1
  | "runtime" // anything else that stops a command → exit 1
  | "hook_blocked" // a hook ended the session → exit 3
  | "interrupted"; // SIGINT → exit 130

export class AgentError extends Error {
  readonly code: ErrorCode;
  readonly file: string | undefined;
  readonly field: string | undefined;
  readonly fix: string | undefined;

  constructor(code: ErrorCode, message: string, details: { file?: string; field?: string; fix?: string } = {}) {
    super(message);
    this.name = "AgentError";
    this.code = code;
    this.file = details.file;
    this.field = details.field;
    this.fix = details.fix;
  }

  /** One line: `<file>: <field>: <message> (<fix>)`, omitting absent parts. */
  render(): string {
    const parts: string[] = [];
    if (this.file) parts.push(this.file);
    if (this.field) parts.push(this.field);
    parts.push(this.message);
    const line = parts.join(": ");
    return this.fix ? `${line} (${this.fix})` : line;
  }
}

/** The message of a caught value (an `Error`'s message, anything else as text). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
