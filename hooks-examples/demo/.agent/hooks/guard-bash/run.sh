#!/bin/sh
# guard-bash — a pre_tool hook directory (action dialect) that denies a few catastrophic shell
# commands before the bash tool runs them:
#   rm -r/-rf of /, /*, ~, $HOME or a top-level system directory; force push to main/master;
#   a download piped into a shell (curl … | sh, wget … | bash, bash <(curl …)); chmod -R 777.
# stdin: one JSON line {"session_id","cwd","hook_event","tool","tool_use_id","input":{"command",…}}
# stdout: one JSON line. Deny = {"action":"deny","reason":…} and exit 2; else {"action":"allow"}.
# A speed bump for honest mistakes, not a sandbox: a determined command can always be obfuscated.
# POSIX sh + awk + grep only (no jq), so it runs unchanged on Linux and macOS.

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
command=$(printf '%s\n' "$input" | json_str command) || command=""

verdict=$(printf '%s\n' "$command" | awk '
  { text = text $0 "\n" }

  # A download fetched inside a shell invocation: bash <(curl …), sh -c "$(wget …)", eval "$(curl …)".
  function fetched_into_shell(t) {
    return t ~ /(^|[^A-Za-z0-9_.-])((ba|z|da|k)?sh|eval|source)[ \t][^;&|]*(\$\(|<\(|`)[ \t]*(curl|wget)([ \t]|$)/
  }
  function unquote(w) { gsub(/["\047\\]/, "", w); return w }
  # Index of the command word of a simple command, skipping wrappers, assignments and their flags.
  function command_index(w, n,   k) {
    for (k = 1; k <= n; k++) {
      if (w[k] ~ /^[A-Za-z_][A-Za-z0-9_]*=/) continue
      if (w[k] ~ /^(sudo|doas|command|exec|nice|nohup|time|env|builtin|stdbuf|timeout|[{}!]|then|do|else|elif|if|while|until)$/) continue
      if (w[k] ~ /^-/) { if (w[k] ~ /^-[ugCcn]$/) k++; continue }
      if (k > 1 && w[k - 1] == "timeout" && w[k] ~ /^[0-9.]+[smhd]?$/) continue
      return k
    }
    return 0
  }
  function base(w) { sub(/.*\//, "", w); return w }
  function dangerous_target(t,   prev) {
    gsub(/\$\{HOME\}/, "$HOME", t)
    gsub(/\/\/+/, "/", t)
    do { prev = t; sub(/\/\*$/, "", t); sub(/\/\.?$/, "", t) } while (t != prev)
    if (t == "" || t == "~" || t == "$HOME") return 1
    return t ~ /^\/(bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|sbin|srv|sys|tmp|usr|var|Applications|Library|System|Users|Volumes|private)$/
  }
  function check_rm(w, n, c,   k, rec, operands, t) {
    rec = 0; operands = 0
    for (k = c + 1; k <= n; k++) {
      if (!operands && w[k] == "--") { operands = 1; continue }
      if (!operands && w[k] ~ /^--/) { if (w[k] == "--recursive") rec = 1; continue }
      if (!operands && w[k] ~ /^-./) { if (w[k] ~ /[rR]/) rec = 1; continue }
      if (dangerous_target(w[k])) t = w[k]
    }
    if (rec && t != "") { print "guard-bash: rm -r of /, ~, $HOME or a system directory is blocked"; return 1 }
    return 0
  }
  function check_chmod(w, n, c,   k, rec, mode) {
    for (k = c + 1; k <= n; k++) {
      if (w[k] == "--recursive" || w[k] ~ /^-[A-Za-z]*R[A-Za-z]*$/) rec = 1
      else if (w[k] ~ /^0?777$/ || w[k] ~ /^(a|ugo)[+=]rwx$/) mode = 1
    }
    if (rec && mode) { print "guard-bash: chmod -R 777 is blocked; grant only the permissions that are needed"; return 1 }
    return 0
  }
  function check_git(w, n, c,   k, sub_k, force, npos, dest, protected, current) {
    for (k = c + 1; k <= n; k++) {
      if (w[k] ~ /^-[Cc]$/) { k++; continue }
      if (w[k] ~ /^-/) continue
      sub_k = k; break
    }
    if (!sub_k || w[sub_k] != "push") return 0
    for (k = sub_k + 1; k <= n; k++) {
      if (w[k] == "--force" || w[k] ~ /^--force-with-lease/ || w[k] ~ /^-[A-Za-z]*f[A-Za-z]*$/) { force = 1; continue }
      if (w[k] == "--all" || w[k] == "--mirror") { protected = 1; continue }
      if (w[k] ~ /^-/) { if (w[k] == "-o" || w[k] == "--repo" || w[k] == "--push-option") k++; continue }
      npos++
      if (npos == 1) continue
      if (w[k] ~ /^\+/) force = 1
      dest = w[k]; sub(/^\+/, "", dest); sub(/.*:/, "", dest); sub(/^refs\/heads\//, "", dest)
      if (dest == "main" || dest == "master") protected = 1
      if (dest == "HEAD") current = 1
    }
    if (npos <= 1) current = 1
    if (force && protected) { print "guard-bash: force push to main/master is blocked; push a branch and open a pull request"; return 1 }
    if (force && current) { print "?force-push-current"; return 1 }
    return 0
  }
  END {
    if (fetched_into_shell(text)) { print "guard-bash: running a downloaded script through a shell is blocked; download it, read it, then run it"; exit 0 }
    t = text
    gsub(/\|\|/, ";", t)
    gsub(/&&|[;&\n()`]/, "\n", t)
    nl = split(t, lines, "\n")
    for (i = 1; i <= nl; i++) {
      ns = split(lines[i], stages, "|"); fetched = 0
      for (j = 1; j <= ns; j++) {
        stage = stages[j]; sub(/^[ \t]+/, "", stage)
        n = split(stage, w, /[ \t]+/)
        for (k = 1; k <= n; k++) w[k] = unquote(w[k])
        c = command_index(w, n); if (!c) continue
        cmd = base(w[c])
        if (cmd ~ /^(curl|wget)$/) fetched = 1
        else if (fetched && cmd ~ /^((ba|z|da|k|fi)?sh|python[0-9.]*|perl|ruby|node)$/) { print "guard-bash: piping a download into a shell (curl … | sh) is blocked; download it, read it, then run it"; exit 0 }
        if (cmd == "rm" && check_rm(w, n, c)) exit 0
        if (cmd == "chmod" && check_chmod(w, n, c)) exit 0
        if (cmd == "git" && check_git(w, n, c)) exit 0
      }
    }
  }')

# A force push without an explicit branch goes to the current branch: look it up in the agent cwd.
if [ "$verdict" = "?force-push-current" ]; then
  verdict=""
  cwd=${AGENT_CWD:-$(printf '%s\n' "$input" | json_str cwd)}
  branch=$(git -C "${cwd:-.}" symbolic-ref --short -q HEAD 2>/dev/null)
  case "$branch" in
    main|master) verdict="guard-bash: force push to main/master is blocked; push a branch and open a pull request" ;;
  esac
fi

if [ -n "$verdict" ]; then
  printf '{"action":"deny","reason":"%s"}\n' "$verdict"
  exit 2
fi
printf '{"action":"allow"}\n'
