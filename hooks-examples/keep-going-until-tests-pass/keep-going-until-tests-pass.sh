#!/bin/sh
# keep-going-until-tests-pass — a lifecycle stop command (claude dialect, seed 002): when the
# agent is about to stop, runs the project's tests and, if they fail, refuses the stop with
#   {"decision":"block","reason":"tests are failing (<command> exited N):\n<last lines of output>"}
# so the agent goes on with that reason as its next instruction.
# Test command: $AGENT_TEST_COMMAND (run by sh in the project root), else `npm test --silent`
# when <project>/package.json exists and this script is installed in the project (never from a
# user-scope copy: that would run the project's code), else nothing to do. When stop_hook_active is true (the agent
# is already continuing because of a stop hook) it allows the stop at once: one retry per reply,
# and the agent's own cap (hooks.stop_block_cap) still bounds the loop.
# POSIX sh + grep + awk (no jq), so it runs unchanged on Linux and macOS.
OUTPUT_TAIL_LINES=30

input=$(cat)
if printf '%s\n' "$input" | grep -Eq '[{,][[:space:]]*"stop_hook_active"[[:space:]]*:[[:space:]]*true'; then
  exit 0
fi

project=${AGENT_PROJECT_DIR:-$(pwd)}
# `npm test` runs whatever the project's package.json says: only a copy installed in the project
# (trusted with it) does that by itself. Installed at user scope (this script outside the project)
# it runs only $AGENT_TEST_COMMAND, a command you chose.
in_project=false
case "$0" in
  "$project"/*) in_project=true ;;
esac
cd "$project" || exit 0
if [ -n "${AGENT_TEST_COMMAND:-}" ]; then
  test_command=$AGENT_TEST_COMMAND
elif $in_project && [ -f package.json ]; then
  test_command="npm test --silent"
else
  exit 0
fi

# The tests must not read the hook's stdin; merge stderr so the reason shows the failure.
output=$(sh -c "$test_command" </dev/null 2>&1)
status=$?
[ "$status" -eq 0 ] && exit 0

# One JSON object on one line: tabs become spaces, other control characters go, backslashes and
# quotes are escaped (sed, because awk's gsub treats backslashes differently per implementation),
# and the lines are joined with the two characters \n.
json_text() {
  tr '\t' ' ' | tr -d '\000-\010\013-\037\177' | sed 's/\\/\\\\/g; s/"/\\"/g' |
    awk '{ printf "%s%s", (NR > 1 ? "\\n" : ""), $0 }'
}
tail_text=$(printf '%s\n' "$output" | tail -n "$OUTPUT_TAIL_LINES")
reason=$({
  printf 'tests are failing (%s exited %s)' "$test_command" "$status"
  [ -n "$tail_text" ] && printf ':\n%s' "$tail_text"
  printf '\n'
} | json_text)
printf '{"decision":"block","reason":"%s"}\n' "$reason"
exit 0
