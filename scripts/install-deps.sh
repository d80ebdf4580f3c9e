#!/usr/bin/env bash
# Installs the Debian packages Liveline needs, once: packages already present are skipped.
# Usage: scripts/install-deps.sh [build|test|demo]
set -euo pipefail

packages=(pkg-config libssl-dev libnghttp2-dev libbrotli-dev libjemalloc-dev libsqlite3-dev libpq-dev libmicrohttpd-dev ca-certificates openssl
  libcurl4-openssl-dev zlib1g-dev)
# Previews and their PNGs: headless Chromium through chromedriver, with the fonts the HTML previews
# name (Inter for SF Pro, emoji, mono; docs/previews.md).
browser=(chromium chromium-driver fonts-dejavu-core fonts-inter-variable fonts-noto-color-emoji fonts-jetbrains-mono)
case "${1:-build}" in
  test) packages+=(postgresql nghttp2-client nghttp2-server nginx-light curl python3 python3-aioapns python3-httpx python3-h2 wrk gdb "${browser[@]}" python3-selenium firefox-esr python3-websockets)
        # The React Native client's tests run on Node's own test runner; Debian's nodejs when no node is on the PATH.
        command -v node >/dev/null 2>&1 || packages+=(nodejs) ;;
  demo) packages+=("${browser[@]}") ;;
  build) ;;
  *) echo "usage: $0 [build|test|demo]" >&2; exit 64 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "error: missing Debian packages: ${missing[*]}" >&2
  echo "hint: run as root, install sudo, or: apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
