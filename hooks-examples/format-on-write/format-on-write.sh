#!/bin/sh
# format-on-write — a lifecycle post_tool_use command (claude dialect, seed 002) for Write|Edit:
# formats tool_input.file_path in place with the formatter for its extension, only when that
# formatter is installed (on PATH, or prettier in <project>/node_modules/.bin):
#   prettier: js jsx ts tsx mjs cjs json css scss less html vue md yaml yml
#   black: py    gofmt: go    shfmt: sh bash
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

project=${AGENT_PROJECT_DIR:-.}
formatter=""
case "$file" in
  *.js|*.jsx|*.ts|*.tsx|*.mjs|*.cjs|*.json|*.css|*.scss|*.less|*.html|*.vue|*.md|*.yaml|*.yml)
    if command -v prettier >/dev/null 2>&1; then formatter=prettier
    elif [ -x "$project/node_modules/.bin/prettier" ]; then formatter="$project/node_modules/.bin/prettier"
    fi
    [ -n "$formatter" ] && set -- "$formatter" --write "$file" ;;
  *.py)
    command -v black >/dev/null 2>&1 && formatter=black && set -- black --quiet "$file" ;;
  *.go)
    command -v gofmt >/dev/null 2>&1 && formatter=gofmt && set -- gofmt -w "$file" ;;
  *.sh|*.bash)
    command -v shfmt >/dev/null 2>&1 && formatter=shfmt && set -- shfmt -w "$file" ;;
esac
[ -n "$formatter" ] || exit 0

if ! "$@" </dev/null >/dev/null 2>&1; then
  printf 'format-on-write: %s could not format %s\n' "${formatter##*/}" "$file"
fi
exit 0
