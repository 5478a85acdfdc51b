#!/bin/sh
# Demo wrapper around the audit-log example: the log goes to the demo's output directory,
# $AGENT_DEMO_OUT (default <project>/.agent/demo-out), so running the demo leaves the tree clean.
out=${AGENT_DEMO_OUT:-${AGENT_PROJECT_DIR:-.}/.agent/demo-out}
AGENT_AUDIT_LOG="$out/audit.jsonl"
export AGENT_AUDIT_LOG
exec "$(dirname "$0")/audit-jsonl.sh"
