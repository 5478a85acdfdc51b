#!/bin/sh
# protect-secrets — a pre_tool hook directory (action dialect) that denies write and edit calls
# whose file_path is a secrets file: .env, .env.*, *.pem, *.key, id_rsa* (and the other ssh key
# names id_dsa*, id_ecdsa*, id_ed25519*). Names compare case-insensitively on the last path part.
# It matches every tool ("match":"*") and lets everything except write/edit through at once.
# stdin: one JSON line {"session_id","cwd","hook_event","tool","tool_use_id","input":{…}}
# stdout: one JSON line. Deny = {"action":"deny","reason":…} and exit 2; else {"action":"allow"}.
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

allow() {
  printf '{"action":"allow"}\n'
  exit 0
}

input=$(cat)
tool=$(printf '%s\n' "$input" | json_str tool) || allow
case "$tool" in
  write|edit) ;;
  *) allow ;;
esac

path=$(printf '%s\n' "$input" | json_str file_path) || allow
# Last path component (either separator), lower-cased; a trailing separator is not a file name.
name=$(printf '%s\n' "$path" | awk '{ line = $0 } END { sub(/.*[\/\\]/, "", line); print tolower(line) }')

case "$name" in
  .env|.env.*|*.pem|*.key|id_rsa*|id_dsa*|id_ecdsa*|id_ed25519*) ;;
  *) allow ;;
esac

# The reason names the file; escape it for JSON (backslash, quote) and drop control characters.
shown=$(printf '%s' "$name" | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g')
printf '{"action":"deny","reason":"protect-secrets: %s looks like a secrets file; edit it yourself, outside the agent"}\n' "$shown"
exit 2
