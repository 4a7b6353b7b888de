#!/usr/bin/env bash
# cli_check.sh EXPECTED_EXIT REGEX -- COMMAND...
# Runs COMMAND; passes when it exits with EXPECTED_EXIT and its combined output
# matches the extended regular expression REGEX.
set -u
want="$1"; regex="$2"; shift 3
out="$("$@" 2>&1)"; got=$?
if [ "$got" -ne "$want" ]; then
  printf '%s\n' "$out"; echo "cli_check: exit $got, expected $want" >&2; exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  printf '%s\n' "$out"; echo "cli_check: output does not match: $regex" >&2; exit 1
fi
