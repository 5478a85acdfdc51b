#!/bin/sh
# Demo session_start hook: plain stdout becomes hidden model context (never shown in the transcript).
cat >/dev/null
printf 'project: agent hooks demo (hooks-examples/demo)\n'
printf 'house rule: scratch files go under .agent/demo-out/\n'
exit 0
