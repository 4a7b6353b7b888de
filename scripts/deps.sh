#!/usr/bin/env bash
# Installs the Debian 12 packages ssdsim builds and runs with, if any is missing.
#   bash scripts/deps.sh        everything: the simulator, the test suite (Catch2, Icarus,
#                               Yosys, GTKWave and its headless display) and Python's venv
#   bash scripts/deps.sh sim    only what building and running ssdsim needs (the compiler,
#                               CMake, SystemC, Boost, Verilator for the verilated block)
#   bash scripts/deps.sh python only Python and its venv (scripts/pyenv.sh)
# Needs root (or sudo). Safe to run again: it does nothing when all are present.
set -euo pipefail
sim=(cmake ninja-build g++ pkg-config libsystemc-dev libboost-program-options-dev verilator zlib1g-dev)
python=(python3 python3-venv)
rest=(catch2 iverilog yosys gtkwave xvfb xauth x11-apps imagemagick)
case "${1:-all}" in
  sim) pkgs=("${sim[@]}") ;;
  python) pkgs=("${python[@]}") ;;
  all) pkgs=("${sim[@]}" "${python[@]}" "${rest[@]}") ;;
  *) echo "scripts/deps.sh: expected 'sim', 'python' or nothing, not '$1'" >&2; exit 2 ;;
esac
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
