#!/bin/sh
# format-on-write — a lifecycle post_tool_use command (claude dialect, seed 002) for Write|Edit:
# formats tool_input.file_path in place with the formatter for its extension, only when that
# formatter is installed (on PATH, or prettier in <project>/node_modules/.bin):
#   prettier: js jsx ts tsx mjs cjs json css scss less html vue md yaml yml
#   black: py    gofmt: go    shfmt: sh bash
# Installed at user scope (this script outside the project) it never runs a file the project
# ships: a formatter found inside the project or through a relative PATH entry is skipped, the
# project's node_modules/.bin is not looked at, and prettier runs with --no-config (a project's
# prettier config can load plugins, which are code). Installed in the project (trusted with it),
# it uses the project's prettier and config.
# Silent when there is nothing to do or no formatter. When a formatter fails (a syntax error, say)
# it prints one plain line, which the agent shows as an info message; it always exits 0, so a
# formatter problem never blocks or fails the agent.
# POSIX sh + awk only (no jq), so it runs unchanged on Linux and macOS.

# json_str KEY: the first string value of KEY in the JSON on stdin, unescaped. The key must follow
# `{` or `,`, which text inside a JSON string can never do (its quotes are escaped).
json_str() {
  awk -v key="$1" '
    { text = text $0 "\n" }
    END {
      if (!match(text, "[{,][ \t\r\n]*\"" key "\"[ \t\r\n]*:[ \t\r\n]*\"")) exit 1
      s = substr(text, RSTART + RLENGTH); out = ""
      while (match(s, /["\\]/)) {
        out = out substr(s, 1, RSTART - 1)
        if (substr(s, RSTART, 1) == "\"") { printf "%s", out; exit 0 }
        e = substr(s, RSTART + 1, 1); step = 2
        if (e == "n") e = "\n"; else if (e == "t") e = "\t"; else if (e == "r") e = "\r"
        else if (e == "b" || e == "f") e = " "
        else if (e == "u") {
          hex = tolower(substr(s, RSTART + 2, 4)); code = 0; step = 6
          for (k = 1; k <= 4; k++) code = code * 16 + index("0123456789abcdef", substr(hex, k, 1)) - 1
          e = (code >= 32 && code < 127) ? sprintf("%c", code) : (code == 10 ? "\n" : (code == 9 ? "\t" : "?"))
        }
        out = out e; s = substr(s, RSTART + step)
      }
      exit 1
    }'
}

input=$(cat)
# tool_input comes before tool_response in the payload, so the first file_path is the input's.
file=$(printf '%s\n' "$input" | json_str file_path) || exit 0
[ -n "$file" ] || exit 0
# Relative paths are relative to the agent cwd, which is this command's cwd.
case "$file" in
  -*) file="./$file" ;;
esac
[ -f "$file" ] || exit 0

project=${AGENT_PROJECT_DIR:-$(pwd)}
# In the project when this script itself lives there; else it is the user's and trusts nothing of the project's.
in_project=false
case "$0" in
  "$project"/*) in_project=true ;;
esac

# found NAME: the formatter's path on PATH, or nothing when it is missing. At user scope the PATH
# entries inside the project, and relative ones (they follow the cwd, the project), are passed over.
found() {
  if $in_project; then
    command -v "$1" 2>/dev/null
    return
  fi
  saved_ifs=$IFS
  IFS=:
  set -f
  for dir in $PATH; do
    case "$dir" in
      "$project" | "$project"/* | "" | [!/]*) continue ;;
    esac
    if [ -f "$dir/$1" ] && [ -x "$dir/$1" ]; then
      IFS=$saved_ifs
      set +f
      printf '%s\n' "$dir/$1"
      return 0
    fi
  done
  IFS=$saved_ifs
  set +f
  return 1
}

formatter=""
case "$file" in
  *.js|*.jsx|*.ts|*.tsx|*.mjs|*.cjs|*.json|*.css|*.scss|*.less|*.html|*.vue|*.md|*.yaml|*.yml)
    if formatter=$(found prettier); then :
    elif $in_project && [ -x "$project/node_modules/.bin/prettier" ]; then formatter="$project/node_modules/.bin/prettier"
    else formatter=""
    fi
    if [ -n "$formatter" ]; then
      if $in_project; then set -- "$formatter" --write "$file"; else set -- "$formatter" --no-config --write "$file"; fi
    fi ;;
  *.py)
    formatter=$(found black) && set -- "$formatter" --quiet "$file" ;;
  *.go)
    formatter=$(found gofmt) && set -- "$formatter" -w "$file" ;;
  *.sh|*.bash)
    formatter=$(found shfmt) && set -- "$formatter" -w "$file" ;;
esac
[ -n "$formatter" ] || exit 0

if ! "$@" </dev/null >/dev/null 2>&1; then
  printf 'format-on-write: %s could not format %s\n' "${formatter##*/}" "$file"
fi
exit 0
