#!/usr/bin/env bash
# Installs what is missing (Debian packages), then configures and builds collbench in
# ./build. Safe to run again: it installs and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ make cmake git python3 mpich libmpich-dev libcli11-dev libfccp-dev nlohmann-json3-dev
          libgtest-dev libgmock-dev libbenchmark-dev python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
