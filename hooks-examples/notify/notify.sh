#!/bin/sh
# notify — a lifecycle notification (and optionally stop) command (claude dialect, seed 002):
# shows the agent's notification on the desktop. Tries, in order: notify-send (Linux),
# osascript (macOS), else a terminal bell and one line on /dev/tty when it can be opened.
# Title/message come from the payload (`title`, `message`); a stop event says the reply is ready.
# Prints nothing on stdout and always exits 0: a missing notifier never fails the agent or
# changes the notification (the agent still prints it itself).
# POSIX sh + awk (no jq), so it runs unchanged on Linux and macOS.

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
event=$(printf '%s\n' "$input" | json_str hook_event_name) || event=""
title=$(printf '%s\n' "$input" | json_str title) || title=""
message=$(printf '%s\n' "$input" | json_str message) || message=""
case "$event" in
  Stop) message="finished its reply" ;;
esac
[ -n "$title" ] || title="agent"
[ -n "$message" ] || message="needs your attention"

if command -v notify-send >/dev/null 2>&1; then
  notify-send -- "$title" "$message" >/dev/null 2>&1
elif [ "$(uname -s 2>/dev/null)" = "Darwin" ] && command -v osascript >/dev/null 2>&1; then
  # Passed as arguments, so no AppleScript quoting is needed.
  osascript -e 'on run argv' -e 'display notification (item 2 of argv) with title (item 1 of argv)' \
    -e 'end run' "$title" "$message" >/dev/null 2>&1
else
  # Opening /dev/tty fails without a controlling terminal; that is fine, there is nobody to tell.
  { printf '\a%s: %s\n' "$title" "$message" >/dev/tty; } 2>/dev/null
fi
exit 0
