#!/usr/bin/env bash
# cli_check.sh EXPECTED_EXIT -F|-E EXPECTED -- COMMAND...
# Runs COMMAND; passes when it exits with EXPECTED_EXIT and its combined output holds
# EXPECTED: literally (-F), or a line matching it as an extended regular expression (-E).
set -u
want="$1"; mode="$2"; expected="$3"; shift 4
out="$("$@" 2>&1)"; got=$?
if [ "$got" -ne "$want" ]; then
  printf '%s\n' "$out"; echo "cli_check: exit $got, expected $want" >&2; exit 1
fi
if ! printf '%s\n' "$out" | grep -q "$mode" -- "$expected"; then
  printf '%s\n' "$out"; echo "cli_check: the output does not hold ($mode): $expected" >&2; exit 1
fi
