#!/bin/sh
# audit-jsonl — a tool-call list hook (envelope dialect, seed 003) for hooks.before_tool and
# hooks.after_tool: appends each envelope it receives as one JSON line to the audit log.
# Log file: $AGENT_AUDIT_LOG if set, else <project>/.agent/audit.jsonl ($AGENT_PROJECT_DIR; the
# agent cwd when unset). With the default "payload": "redacted" the log holds no command bodies,
# file contents or secrets; switch to "full" only for a log that stays on a trusted machine.
# Prints nothing and exits 0: an audit hook never changes what the tool does.
# POSIX sh only (no jq), so it runs unchanged on Linux and macOS.
log=${AGENT_AUDIT_LOG:-${AGENT_PROJECT_DIR:-.}/.agent/audit.jsonl}

# JSON text never holds a raw newline inside a string, so removing line breaks keeps a
# pretty-printed envelope valid and makes it one line.
line=$(tr -d '\r\n')
[ -n "$line" ] || exit 0

mkdir -p "$(dirname "$log")" || exit 1
printf '%s\n' "$line" >> "$log"
