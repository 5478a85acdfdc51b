#!/bin/sh
# Demo hook directory (action dialect, pre_tool, every tool): writes one line per requested tool
# call to the demo's audit log before any other hook decides, so a call that guard-bash denies is
# in the log too (a deny stops later hooks, and the audit-log list hooks run last, D13). The line
# holds the phase, the tool and the call id only, never the input: the log stays redacted.
# Always allows; the decision is left to guard-bash and the permission gate.

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
tool=$(printf '%s\n' "$input" | json_str tool) || tool=""
call=$(printf '%s\n' "$input" | json_str tool_use_id) || call=""
out=${AGENT_DEMO_OUT:-${AGENT_PROJECT_DIR:-.}/.agent/demo-out}
mkdir -p "$out" && printf '{"phase":"pre_tool","hook":"audit-requests","tool":{"name":"%s","call_id":"%s"}}\n' \
  "$(printf '%s' "$tool" | tr -cd 'A-Za-z0-9_.-')" "$(printf '%s' "$call" | tr -cd 'A-Za-z0-9_.-')" >> "$out/audit.jsonl"
printf '{"action":"allow"}\n'
