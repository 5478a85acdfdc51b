#!/bin/sh
# session-context — a lifecycle session_start command (claude dialect, seed 002): prints the git
# branch and a short status of the agent cwd as plain stdout, which the agent turns into hidden
# model context (<hook_context>, never shown in the transcript). Prints nothing outside a git
# repository or when git is not installed. Always exits 0.
# POSIX sh only (no jq), so it runs unchanged on Linux and macOS.
MAX_STATUS_LINES=20

# Read (and ignore) the payload: the command's cwd is the agent cwd, which is all we need.
cat >/dev/null

command -v git >/dev/null 2>&1 || exit 0
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || exit 0

branch=$(git symbolic-ref --short -q HEAD 2>/dev/null) ||
  branch="detached at $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
status=$(git status --short 2>/dev/null)

printf 'git branch: %s\n' "$branch"
if [ -z "$status" ]; then
  printf 'git status: clean\n'
else
  count=$(printf '%s\n' "$status" | wc -l | tr -d ' ')
  printf 'git status (%s changed):\n' "$count"
  printf '%s\n' "$status" | head -n "$MAX_STATUS_LINES"
  if [ "$count" -gt "$MAX_STATUS_LINES" ]; then
    printf '… and %s more\n' "$((count - MAX_STATUS_LINES))"
  fi
fi
exit 0
