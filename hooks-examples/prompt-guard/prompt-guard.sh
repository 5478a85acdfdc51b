#!/bin/sh
# prompt-guard — a lifecycle user_prompt_submit command (claude dialect, seed 002): blocks a
# prompt that carries something credential-shaped before it reaches the model, by exiting 2 with
# the reason on stderr (the secret itself is never echoed). Detects:
#   "password is <something>" (not "password is required" and the like), "sk-…" API keys (OpenAI, Anthropic), AWS access key ids "AKIA…",
#   GitHub tokens "ghp_…" (and gho_/ghu_/ghs_/ghr_/github_pat_), PEM private key headers.
# Anything else: exit 0 with no output (the prompt goes through unchanged).
# POSIX sh + awk + grep (no jq), so it runs unchanged on Linux and macOS.

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

block() {
  printf 'prompt-guard: the prompt seems to contain %s; remove it (rotate it if it was real) and refer to it by an environment variable name instead\n' "$1" >&2
  exit 2
}

prompt=$(json_str prompt) || exit 0
has() { printf '%s\n' "$prompt" | grep -Eq -e "$1"; }

# "password is X" where X is not a word that talks about passwords ("the password is required").
printf '%s\n' "$prompt" | grep -Eio 'pass(word|wd)[[:space:]]+is[[:space:]:=]+[^[:space:]]+' |
  sed 's/.*[[:space:]:=]//' |
  grep -Eivq '^(a|an|the|not|now|too|also|still|only|being|required|wrong|incorrect|invalid|empty|missing|correct|set|unset|stored|hashed|encrypted|expired|valid|changed|reset|optional|needed)[[:punct:]]*$' &&
  block "a password"
has '(^|[^A-Za-z0-9])sk-[A-Za-z0-9_-]{20,}' && block "an API key (sk-…)"
has '(^|[^A-Za-z0-9])(AKIA|ASIA)[0-9A-Z]{16}([^0-9A-Z]|$)' && block "an AWS access key id"
has '(^|[^A-Za-z0-9])(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})' && block "a GitHub token"
has '-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY-----' && block "a private key"
exit 0
