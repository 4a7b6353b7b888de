#!/usr/bin/env bash
# Installs the Debian 12 packages ssdsim builds and runs with, if any is missing.
# Needs root (or sudo). Safe to run again: it does nothing when all are present.
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config libsystemc-dev libboost-program-options-dev catch2
      verilator iverilog yosys gtkwave zlib1g-dev python3 python3-venv
      xvfb xauth x11-apps imagemagick)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
