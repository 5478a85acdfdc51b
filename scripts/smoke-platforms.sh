#!/usr/bin/env bash
# Smoke-tests the release artefacts that can run on this machine: linux-x64 natively, linux-arm64
# under qemu-user-static, windows-x64 under Wine. Each gets `--version`, `hooks list` from a git
# subdirectory, `hooks test` of a deny (and of an allow) and the README demo. Also: all six targets
# build, twice, byte-identically; SHA256SUMS.minisig verifies with the stock minisign; install.sh
# installs from the folder; the zsh and fish completion scripts parse.
# macOS and musl artefacts are built and checksummed but cannot run here.
#
# Missing tools are installed with apt-get when root can (wine, qemu-user-static, the arm64 C
# library, mingw-w64 for the Wine stub below, minisign, zsh, fish); a platform whose tools are still
# missing is reported as skipped. SMOKE_BUDGET_SECONDS (default 900) bounds the whole run: a step
# that would start past it is skipped, and each step has its own timeout. SMOKE_KEEP_RELEASE=DIR
# builds the release there and keeps it.
# Test aid only: Wine 8 has no bcryptprimitives.dll (Bun's runtime imports ProcessPrng from it), so a
# stub built here with mingw, forwarding to RtlGenRandom, goes into the throwaway Wine prefix.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
budget=${SMOKE_BUDGET_SECONDS:-900}
failures=0
pass() { echo "smoke: PASS $*"; }
fail() { echo "smoke: FAIL $*"; failures=$((failures + 1)); }
skip() { echo "smoke: SKIP $*"; }
in_budget() { [ $((SECONDS - start)) -lt "$budget" ] || { skip "$1 (time budget of ${budget}s used up)"; return 1; }; }
elapsed() { echo "smoke: ... $1 took $(($SECONDS - $2))s"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/agent-smoke.XXXXXX")
# SMOKE_KEEP_WINEPREFIX=DIR keeps the prepared Wine prefix there (bench/artefacts.ts runs in it).
export WINEPREFIX="${SMOKE_KEEP_WINEPREFIX:-$work/wine}" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
cleanup() {
  command -v wineserver >/dev/null 2>&1 && [ -d "$WINEPREFIX" ] && wineserver -k >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

# --- tools ---------------------------------------------------------------------------------------
t=$SECONDS
want=()
command -v wine >/dev/null || want+=(wine wine64)
command -v qemu-aarch64-static >/dev/null || want+=(qemu-user-static)
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || want+=(libc6-arm64-cross)
command -v x86_64-w64-mingw32-gcc >/dev/null || want+=(gcc-mingw-w64-x86-64)
command -v minisign >/dev/null || want+=(minisign)
command -v zsh >/dev/null || want+=(zsh)
command -v fish >/dev/null || want+=(fish)
if [ ${#want[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "smoke: installing ${want[*]}"
    export DEBIAN_FRONTEND=noninteractive
    timeout 300 apt-get update -q >/dev/null 2>&1
    timeout 600 apt-get install -y -q --no-install-recommends "${want[@]}" >"$work/apt.log" 2>&1 || { tail -5 "$work/apt.log"; echo "smoke: apt-get install failed; the platforms that need it are skipped"; }
  else
    echo "smoke: not root or no apt-get: cannot install ${want[*]}"
  fi
fi
elapsed "tools" "$t"

# --- release: six targets, reproducible, signed --------------------------------------------------
t=$SECONDS
rel="${SMOKE_KEEP_RELEASE:-$work/release}"
npx bun scripts/release.ts --generate-key="$work/key" >/dev/null
if AGENT_SIGNING_KEY_FILE="$work/key/agent-release.key" timeout 900 npx bun scripts/release.ts --out="$rel" --reproduce >"$work/release.log" 2>&1; then
  pass "release: six targets built twice, byte-identical; SHA256SUMS signed"
else
  tail -20 "$work/release.log"; fail "release"
fi
elapsed "release (two builds of six targets)" "$t"
(cd "$rel" && sha256sum -c --quiet SHA256SUMS) && pass "SHA256SUMS matches" || fail "SHA256SUMS"
if command -v minisign >/dev/null; then
  minisign -Vq -m "$rel/SHA256SUMS" -p "$work/key/agent-release.pub" && pass "minisign verifies SHA256SUMS.minisig" || fail "minisign -V"
else skip "minisign -V (minisign not installed)"; fi
sh "$rel/install.sh" --from "$rel" --to "$work/bin" --pubkey "$work/key/agent-release.pub" >"$work/install.log" 2>&1 && [ -x "$work/bin/agent" ] && pass "install.sh from the release folder" || { cat "$work/install.log"; fail "install.sh"; }
for shell in zsh fish; do
  if command -v $shell >/dev/null; then
    "$rel/agent-linux-x64" completion $shell >"$work/completion.$shell" && $shell -n "$work/completion.$shell" && pass "$shell completion parses" || fail "$shell completion"
  else skip "$shell completion (not installed)"; fi
done

# --- the checks each runnable artefact gets --------------------------------------------------------
# A fresh copy of the demo in a git repository, with a subdirectory to run `hooks list` from.
demo_project() {
  rm -rf "$work/demo" && cp -r hooks-examples/demo "$work/demo" && mkdir -p "$work/demo/sub/dir"
  git -C "$work/demo" init -q
}

# check NAME RUNNER... : the runner prefix runs the artefact (qemu, wine or nothing).
check_unix() {
  local name=$1; shift
  local t=$SECONDS
  demo_project
  export AGENT_HOME="$work/home-$name/.agent"
  local out
  out=$(timeout 120 "$@" --version) && [[ "$out" == "agent "*"$name)" ]] && pass "$name --version: $out" || fail "$name --version printed '$out'"
  out=$(cd "$work/demo/sub/dir" && timeout 120 "$@" hooks list) && [[ "$out" == *guard-bash*"source: .agent/hooks/guard-bash/hook.json"* ]] && pass "$name hooks list from a git subdirectory" || fail "$name hooks list: $out"
  (cd "$work/demo" && timeout 120 "$@" hooks test pre_tool --tool bash --input '{"command":"rm -rf /"}' --json --trust >"$work/deny.json"); local rc=$?
  [ $rc -eq 2 ] && grep -q '"decision":"deny"' "$work/deny.json" && pass "$name hooks test: deny (exit 2)" || fail "$name hooks test deny exited $rc: $(cat "$work/deny.json")"
  (cd "$work/demo" && timeout 120 "$@" run --provider script --script script.json --trust --permission-mode accept-edits --allow 'bash(ls*)' "Show me around" >"$work/demo.out" 2>&1); rc=$?
  [ $rc -eq 0 ] && [ -f "$work/demo/.agent/demo-out/notes.txt" ] && grep -q "guard-bash" "$work/demo.out" && pass "$name README demo" || { cat "$work/demo.out"; fail "$name README demo exited $rc"; }
  unset AGENT_HOME
  elapsed "$name" "$t"
}

if in_budget linux-x64; then check_unix linux-x64 "$rel/agent-linux-x64"; fi

if in_budget linux-arm64; then
  if command -v qemu-aarch64-static >/dev/null && [ -d /usr/aarch64-linux-gnu ]; then
    check_unix linux-arm64 qemu-aarch64-static -L /usr/aarch64-linux-gnu "$rel/agent-linux-arm64"
  else skip "linux-arm64 (no qemu-user-static or arm64 C library)"; fi
fi

# --- Windows under Wine --------------------------------------------------------------------------
windows_stub_and_hook() {
  cat >"$work/bcryptprimitives.c" <<'EOF'
#include <windows.h>
#include <ntsecapi.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!RtlGenRandom(data, chunk)) return FALSE;
    data += chunk; len -= chunk;
  }
  return TRUE;
}
EOF
  printf 'LIBRARY bcryptprimitives.dll\nEXPORTS\n  ProcessPrng\n' >"$work/bcryptprimitives.def"
  # A pre_tool hook that Windows runs directly (.exe): deny `rm -rf /`, allow the rest.
  cat >"$work/deny.c" <<'EOF'
#include <stdio.h>
#include <string.h>
int main(void) {
  static char input[1 << 16]; size_t n = fread(input, 1, sizeof input - 1, stdin); input[n] = 0;
  if (strstr(input, "rm -rf /")) { puts("{\"action\":\"deny\",\"reason\":\"deny.exe: refusing rm -rf /\"}"); return 2; }
  puts("{\"action\":\"allow\"}"); return 0;
}
EOF
  # A hook that starts a child and sleeps for a minute.
  cat >"$work/slow.c" <<'EOF'
#include <windows.h>
#include <string.h>
int main(void) {
  STARTUPINFOA si = { sizeof si }; PROCESS_INFORMATION pi; char cmd[] = "slow.exe child";
  if (!strstr(GetCommandLineA(), "child")) CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi);
  Sleep(60000); return 0;
}
EOF
  x86_64-w64-mingw32-gcc -O2 -o "$work/slow.exe" "$work/slow.c" &&
  x86_64-w64-mingw32-gcc -shared -O2 -o "$work/bcryptprimitives.dll" "$work/bcryptprimitives.c" "$work/bcryptprimitives.def" -ladvapi32 &&
    x86_64-w64-mingw32-gcc -O2 -o "$work/deny.exe" "$work/deny.c" &&
    timeout 180 wineboot -i >/dev/null 2>&1 &&
    cp "$work/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
}

check_windows() {
  local t=$SECONDS exe="$rel/agent-windows-x64.exe" out rc
  windows_stub_and_hook || { fail "windows-x64: cannot prepare the Wine prefix"; return; }
  elapsed "wine prefix" "$t"
  demo_project
  export AGENT_HOME='C:\agent-home'
  out=$(timeout 120 wine "$exe" --version | tr -d '\r') && [[ "$out" == "agent "*"windows-x64)" ]] && pass "windows-x64 --version: $out" || fail "windows-x64 --version printed '$out'"
  out=$(cd "$work/demo/sub/dir" && timeout 120 wine "$exe" hooks list | tr -d '\r') && [[ "$out" == *guard-bash*'source: .agent\hooks\guard-bash\hook.json'* ]] && pass "windows-x64 hooks list from a git subdirectory" || fail "windows-x64 hooks list: $out"
  out=$(cd "$work/demo" && timeout 120 wine "$exe" hooks validate | tr -d '\r')
  [[ "$out" == *"note: list hooks and the bash tool run in "* ]] && pass "windows-x64 hooks validate names the shell" || fail "windows-x64 hooks validate: $out"
  mkdir -p "$work/winproj/.git" "$work/winproj/.agent/hooks/deny-rm"
  cp "$work/deny.exe" "$work/winproj/.agent/hooks/deny-rm/"
  echo '{"name":"deny-rm","event":"pre_tool","match":"bash","run":"./deny.exe","timeout":"30s"}' >"$work/winproj/.agent/hooks/deny-rm/hook.json"
  (cd "$work/winproj" && timeout 120 wine "$exe" hooks test pre_tool --tool bash --input '{"command":"rm -rf /"}' --json --trust >"$work/deny.json"); rc=$?
  [ $rc -eq 2 ] && grep -q '"reason":"deny.exe: refusing rm -rf /"' "$work/deny.json" && pass "windows-x64 hooks test: deny from a .exe hook (exit 2)" || fail "windows-x64 hooks test deny exited $rc: $(cat "$work/deny.json")"
  (cd "$work/winproj" && timeout 120 wine "$exe" hooks test pre_tool --tool bash --input '{"command":"dir"}' --json --trust >"$work/allow.json"); rc=$?
  [ $rc -eq 0 ] && grep -q '"decision":"allow"' "$work/allow.json" && pass "windows-x64 hooks test: allow (exit 0)" || fail "windows-x64 hooks test allow exited $rc: $(cat "$work/allow.json")"
  # A hook that outlives its timeout is killed (taskkill /T /F; Wine's taskkill has no /T, so there
  # the fallback ends the hook process itself and a grandchild it started may live on).
  mkdir -p "$work/winslow/.git" "$work/winslow/.agent/hooks/slow"
  cp "$work/slow.exe" "$work/winslow/.agent/hooks/slow/"
  echo '{"name":"slow","event":"pre_tool","match":"bash","run":"./slow.exe","timeout":"2s"}' >"$work/winslow/.agent/hooks/slow/hook.json"
  (cd "$work/winslow" && timeout 120 wine "$exe" hooks test pre_tool --tool bash --input '{"command":"dir"}' --json --trust >"$work/slow.json" 2>/dev/null)
  if grep -q '"category":"timeout"' "$work/slow.json" && ! pgrep -f 'hooks.slow.slow\.exe' >/dev/null; then pass "windows-x64 a hook past its timeout is killed"
  else fail "windows-x64 slow hook: $(cat "$work/slow.json"; pgrep -af 'slow\.exe')"; fi
  # The demo's hooks are .sh files, which Windows cannot run directly: guard-bash (fail_closed)
  # blocks both bash calls, and the session still ends normally and writes its notes.
  (cd "$work/demo" && timeout 120 wine "$exe" run --provider script --script script.json --trust --permission-mode accept-edits --allow 'bash(ls*)' "Show me around" >"$work/demo.out" 2>&1); rc=$?
  [ $rc -eq 0 ] && [ -f "$work/demo/.agent/demo-out/notes.txt" ] && grep -q "cannot run .sh directly on Windows" "$work/demo.out" && pass "windows-x64 README demo" || { cat "$work/demo.out"; fail "windows-x64 README demo exited $rc"; }
  # AGENT_HOME=C:\agent-home is absolute: the session file lands there, not in a `C:` folder of the project.
  ls "$WINEPREFIX/drive_c/agent-home/sessions/"*.jsonl >/dev/null 2>&1 && [ -z "$(find "$work/demo" -maxdepth 1 -name '*:*')" ] && pass "windows-x64 session file in C:\\agent-home" || fail "windows-x64 session file not in C:\\agent-home"
  unset AGENT_HOME
  elapsed "windows-x64" "$t"
}

if in_budget windows-x64; then
  if command -v wine >/dev/null && command -v x86_64-w64-mingw32-gcc >/dev/null; then check_windows
  else skip "windows-x64 (no wine or mingw-w64)"; fi
fi

skip "darwin-x64, darwin-arm64, linux-x64-musl: built and checksummed, cannot run on this machine"
echo "smoke: $failures failure(s) in $((SECONDS - start))s"
[ "$failures" -eq 0 ]
