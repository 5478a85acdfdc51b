# install.ps1 - install agent.exe on Windows from a release folder, one downloaded file, or (only
# when asked) a URL, after checking it against SHA256SUMS and, given a public key, the minisign
# signature of SHA256SUMS (needs minisign.exe on PATH). Touches the network only for -From http(s)://
#
#   powershell -ExecutionPolicy Bypass -File install.ps1                      # the folder it sits in
#   .\install.ps1 -From C:\Downloads\agent-0.1.0                              # a local release folder
#   .\install.ps1 -From C:\Downloads\agent-windows-x64.exe                    # SHA256SUMS beside it
#   .\install.ps1 -From https://host/v0.1.0/ -PubKey RWQ...                  # download, then verify
# -To DIR (default $env:LOCALAPPDATA\Programs\agent). Exit 0 installed, 1 refused, 2 usage.
[CmdletBinding()]
param(
  [string]$From = "",
  [string]$To = (Join-Path $env:LOCALAPPDATA "Programs\agent"),
  [string]$Target = "windows-x64",
  [string]$PubKey = "",
  [string]$Sums = ""
)
$ErrorActionPreference = "Stop"
function Fail([string]$Message, [int]$Code = 1) { [Console]::Error.WriteLine("install.ps1: $Message"); exit $Code }

$name = "agent-$Target.exe"
$work = Join-Path ([IO.Path]::GetTempPath()) ("agent-install-" + [Guid]::NewGuid().ToString("N"))
New-Item -ItemType Directory -Path $work | Out-Null
try {
  if ($From -match '^https?://') {
    $base = $From.TrimEnd('/')
    if ($base -match '/(agent-[^/]+)$') { $name = $Matches[1]; $base = $base.Substring(0, $base.LastIndexOf('/')) }
    Write-Output "downloading $base/$name"
    $wanted = @($name, "SHA256SUMS")
    if ($PubKey -ne "") { $wanted += "SHA256SUMS.minisig" }
    foreach ($item in $wanted) {
      try { Invoke-WebRequest -UseBasicParsing -Uri "$base/$item" -OutFile (Join-Path $work $item) } catch { Fail "cannot download $base/${item}: $_" }
    }
    $dir = $work; $file = Join-Path $work $name
  } else {
    if ($From -eq "") { $From = $PSScriptRoot }
    if (Test-Path -LiteralPath $From -PathType Container) { $dir = $From; $file = Join-Path $From $name }
    elseif (Test-Path -LiteralPath $From -PathType Leaf) { $dir = Split-Path -Parent (Resolve-Path -LiteralPath $From); $file = $From; $name = Split-Path -Leaf $From }
    else { Fail "-From ${From}: no such file or folder" }
    if (-not (Test-Path -LiteralPath $file -PathType Leaf)) { Fail "${file}: not found (release folders hold agent-<target>.exe; pass -From FILE)" }
  }
  if ($Sums -eq "") { $Sums = Join-Path $dir "SHA256SUMS" }
  if (-not (Test-Path -LiteralPath $Sums -PathType Leaf)) { Fail "${Sums}: not found; every release has one (pass -Sums FILE if it lives elsewhere)" }

  if ($PubKey -ne "") {
    # .NET has no Ed25519 before .NET 9, so the signature is checked by minisign itself.
    $minisign = Get-Command minisign.exe -ErrorAction SilentlyContinue
    if ($null -eq $minisign) { Fail "-PubKey needs minisign.exe on PATH to check SHA256SUMS.minisig" }
    $keyLine = if (Test-Path -LiteralPath $PubKey -PathType Leaf) { (Get-Content -LiteralPath $PubKey | Where-Object { $_ -and $_ -notmatch '^untrusted comment:' } | Select-Object -First 1) } else { $PubKey }
    & $minisign.Source -Vq -m $Sums -x "$Sums.minisig" -P $keyLine
    if ($LASTEXITCODE -ne 0) { Fail "SHA256SUMS: bad signature" }
    Write-Output "SHA256SUMS: signature ok"
  }

  $expected = $null
  foreach ($line in Get-Content -LiteralPath $Sums) {
    $parts = $line -split '\s+', 2
    if ($parts.Count -eq 2 -and ($parts[1] -eq $name -or $parts[1] -eq "*$name")) { $expected = $parts[0].ToLowerInvariant(); break }
  }
  if ($null -eq $expected) { Fail "$name is not listed in $Sums" }
  $actual = (Get-FileHash -Algorithm SHA256 -LiteralPath $file).Hash.ToLowerInvariant()
  if ($actual -ne $expected) { Fail "${file}: SHA-256 $actual does not match SHA256SUMS ($expected); refusing to install" }
  Write-Output "${name}: sha256 ok"

  New-Item -ItemType Directory -Force -Path $To | Out-Null
  $dest = Join-Path $To "agent.exe"
  Copy-Item -LiteralPath $file -Destination "$dest.new" -Force
  Move-Item -LiteralPath "$dest.new" -Destination $dest -Force
  Write-Output "installed $dest"
  & $dest --version
  $userPath = [Environment]::GetEnvironmentVariable("Path", "User")
  if (-not (($userPath -split ';') -contains $To)) { Write-Output "note: $To is not on PATH; add it: [Environment]::SetEnvironmentVariable('Path', `"$To;`$env:Path`", 'User')" }
} finally {
  Remove-Item -Recurse -Force -LiteralPath $work -ErrorAction SilentlyContinue
}
