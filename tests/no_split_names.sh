#!/usr/bin/env bash
# Fails if a Catch test case name holds ';': CTest's test discovery splits such a name
# into entries that match no test case, which then run nothing and pass.
#   no_split_names.sh TEST_EXECUTABLE...
set -euo pipefail
bad=0
for exe in "$@"; do
  while IFS= read -r name; do
    case "$name" in
      *';'*) echo "$(basename "$exe"): test case name holds ';' (CTest splits it): $name"; bad=1 ;;
    esac
  done < <("$exe" --list-test-names-only)
done
[ "$bad" -eq 0 ] && echo "no_split_names: $# executables, no test case name holds ';'"
exit "$bad"
