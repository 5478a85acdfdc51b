#!/bin/sh
# install.sh — install the agent executable from a release folder, one downloaded file, or (only
# when asked) a URL, after checking it against SHA256SUMS and, given a public key, the minisign
# signature of SHA256SUMS. Touches the network only for --from http(s)://…
#
#   sh install.sh                               the release folder this script sits in
#   sh install.sh --from ./dist/release         a local release folder
#   sh install.sh --from ./agent-linux-x64      one file; SHA256SUMS beside it (or --sums FILE)
#   sh install.sh --from https://host/v0.1.0/   download (curl or wget) the file, SHA256SUMS(.minisig)
# Options: --to DIR (default ~/.local/bin), --target NAME (default: this machine, e.g. linux-x64),
#          --pubkey FILE|KEY (minisign public key: verify SHA256SUMS.minisig; minisign, else OpenSSL 3)
# Exit 0 installed; 1 refused (checksum, signature, missing file); 2 usage. Details: docs/install.md.
set -eu

from="" to="${HOME:-}/.local/bin" target="" pubkey="" sums=""
die() { echo "install.sh: $1" >&2; exit "${2:-1}"; }
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || die "--from needs a folder, file or URL" 2; from=$2; shift 2 ;;
    --to) [ $# -ge 2 ] || die "--to needs a folder" 2; to=$2; shift 2 ;;
    --target) [ $# -ge 2 ] || die "--target needs a name such as linux-x64" 2; target=$2; shift 2 ;;
    --pubkey) [ $# -ge 2 ] || die "--pubkey needs a minisign public key file or key" 2; pubkey=$2; shift 2 ;;
    --sums) [ $# -ge 2 ] || die "--sums needs a SHA256SUMS file" 2; sums=$2; shift 2 ;;
    -h|--help) usage ;;
    *) die "unknown option '$1' (see --help)" 2 ;;
  esac
done

detect_target() {
  os=$(uname -s) arch=$(uname -m)
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) die "no release for $os: pass --target NAME" 2 ;;
  esac
  case "$arch" in
    x86_64|amd64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) die "no release for $arch: pass --target NAME" 2 ;;
  esac
  suffix=""
  if [ "$os" = linux ] && [ "$arch" = x64 ] && ls /lib/ld-musl-* >/dev/null 2>&1 && ! ls /lib64/ld-linux-* >/dev/null 2>&1; then suffix=-musl; fi
  echo "$os-$arch$suffix"
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 -r "$1" | cut -d' ' -f1
  else die "no sha256sum, shasum or openssl to check the download with"
  fi
}

work=$(mktemp -d "${TMPDIR:-/tmp}/agent-install.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

fetch() { # URL FILE
  if command -v curl >/dev/null 2>&1; then curl -fsSL --proto '=https,http' -o "$2" "$1" || die "cannot download $1"
  elif command -v wget >/dev/null 2>&1; then wget -q -O "$2" "$1" || die "cannot download $1"
  else die "neither curl nor wget is installed; download the release by hand and pass --from FOLDER"
  fi
}

[ -n "$target" ] || target=$(detect_target)
name="agent-$target"
case "$target" in windows-*) name="$name.exe" ;; esac

# Where the executable and SHA256SUMS come from.
case "$from" in
  http://*|https://*)
    base=${from%/}
    case "$base" in */agent-*) name=${base##*/}; base=${base%/*} ;; esac
    echo "downloading $base/$name"
    fetch "$base/$name" "$work/$name"
    fetch "$base/SHA256SUMS" "$work/SHA256SUMS"
    [ -z "$pubkey" ] || fetch "$base/SHA256SUMS.minisig" "$work/SHA256SUMS.minisig"
    file="$work/$name" dir="$work" ;;
  *)
    [ -n "$from" ] || from=$(dirname "$0")
    if [ -d "$from" ]; then dir=${from%/} file="$dir/$name"
    elif [ -f "$from" ]; then dir=$(dirname "$from") file=$from name=$(basename "$from")
    else die "--from $from: no such file or folder"
    fi
    [ -f "$file" ] || die "$file: not found (release folders hold agent-<target>; pass --target NAME or --from FILE)" ;;
esac
[ -n "$sums" ] || sums="$dir/SHA256SUMS"
[ -f "$sums" ] || die "$sums: not found; every release has one (pass --sums FILE if it lives elsewhere)"

verify_signature() { # SUMS SIG PUBKEY
  [ -f "$2" ] || die "$2: not found, but --pubkey asks for a signed SHA256SUMS"
  if [ -f "$3" ]; then keyline=$(grep -v '^untrusted comment:' "$3" | grep . | head -n 1); else keyline=$3; fi
  if command -v minisign >/dev/null 2>&1; then
    minisign -Vq -m "$1" -x "$2" -P "$keyline" || die "SHA256SUMS: bad signature (minisign)"
    return
  fi
  command -v openssl >/dev/null 2>&1 || die "--pubkey needs minisign or OpenSSL 3 to check the signature"
  b64d() { printf '%s' "$1" | openssl base64 -d -A; }
  b64d "$keyline" > "$work/key.bin"
  b64d "$(sed -n 2p "$2")" > "$work/sig.bin"
  b64d "$(sed -n 4p "$2")" > "$work/global.bin"
  trusted=$(sed -n 3p "$2")
  case "$trusted" in "trusted comment: "*) ;; *) die "$2: not a minisign signature file" ;; esac
  [ "$(wc -c < "$work/key.bin" | tr -d ' ')" = 42 ] || die "--pubkey: not a minisign public key"
  [ "$(wc -c < "$work/sig.bin" | tr -d ' ')" = 74 ] || die "$2: not a minisign signature"
  dd if="$work/key.bin" of="$work/key.id" bs=1 skip=2 count=8 2>/dev/null
  dd if="$work/sig.bin" of="$work/sig.id" bs=1 skip=2 count=8 2>/dev/null
  cmp -s "$work/key.id" "$work/sig.id" || die "SHA256SUMS: signed by another key (key id differs)"
  # SubjectPublicKeyInfo DER for Ed25519 = fixed 12-byte prefix + the 32-byte key.
  { printf '\060\052\060\005\006\003\053\145\160\003\041\000'; tail -c 32 "$work/key.bin"; } > "$work/pub.der"
  tail -c 64 "$work/sig.bin" > "$work/sig.raw"
  case "$(head -c 2 "$work/sig.bin")" in
    ED) openssl dgst -blake2b512 -binary "$1" > "$work/signed" ;;
    Ed) cp "$1" "$work/signed" ;;
    *) die "$2: unknown signature algorithm" ;;
  esac
  ossl_verify() { openssl pkeyutl -verify -pubin -keyform DER -inkey "$work/pub.der" -rawin -in "$1" -sigfile "$2" >/dev/null 2>&1; }
  ossl_verify "$work/signed" "$work/sig.raw" || die "SHA256SUMS: bad signature"
  { cat "$work/sig.raw"; printf '%s' "${trusted#trusted comment: }"; } > "$work/global.msg"
  ossl_verify "$work/global.msg" "$work/global.bin" || die "SHA256SUMS.minisig: the trusted comment was altered"
}

if [ -n "$pubkey" ]; then
  verify_signature "$sums" "$sums.minisig" "$pubkey"
  echo "SHA256SUMS: signature ok"
fi

expected=$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1; exit }' "$sums")
[ -n "$expected" ] || die "$name is not listed in $sums"
actual=$(sha256_of "$file")
[ "$actual" = "$expected" ] || die "$file: SHA-256 $actual does not match SHA256SUMS ($expected); refusing to install"
echo "$name: sha256 ok"

mkdir -p "$to"
dest="$to/agent"
case "$target" in windows-*) dest="$dest.exe" ;; esac
cp "$file" "$dest.new.$$"
chmod 755 "$dest.new.$$"
mv -f "$dest.new.$$" "$dest"
echo "installed $dest"
case "$target" in
  windows-*) ;;
  *) "$dest" --version || die "$dest does not run here (wrong --target?)" ;;
esac
case ":${PATH:-}:" in *":$to:"*) ;; *) echo "note: $to is not on PATH; add it, e.g. export PATH=\"$to:\$PATH\"" ;; esac
