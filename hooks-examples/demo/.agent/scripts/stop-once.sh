#!/bin/sh
# Demo stop hook: refuses the first stop of a session once, so the agent goes on for one more
# reply. It allows the stop when stop_hook_active is true (the agent is already continuing because
# of a stop hook) or when this session's marker exists in $AGENT_DEMO_OUT (default
# <project>/.agent/demo-out); a new session gets a new marker, so the demo can be run again.
input=$(cat)
if printf '%s\n' "$input" | grep -Eq '[{,][[:space:]]*"stop_hook_active"[[:space:]]*:[[:space:]]*true'; then
  exit 0
fi
out=${AGENT_DEMO_OUT:-${AGENT_PROJECT_DIR:-.}/.agent/demo-out}
marker="$out/stop-once.${AGENT_SESSION_ID:-no-session}"
[ -e "$marker" ] && exit 0
mkdir -p "$out" && : >"$marker"
printf '{"decision":"block","reason":"Before you finish: check that .agent/demo-out/notes.txt was written, then answer in one line."}\n'
exit 0
