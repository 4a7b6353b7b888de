#!/usr/bin/env bash
# docs_keys_check.sh SSDSIM SOURCE_DIR: docs/keys.md is what the key declarations give
# (ssdsim --list-keys=markdown). After adding or changing a key:
#   build/ssdsim --list-keys=markdown > docs/keys.md
set -eu
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
diff <("$1" --list-keys=markdown) "$2/docs/keys.md" \
  || { echo "docs/keys.md differs from the declarations (< declared, > docs): regenerate it with"
       echo "  build/ssdsim --list-keys=markdown > docs/keys.md"; exit 1; }
echo "docs/keys.md matches the $(grep -c '^| `' "$2/docs/keys.md") declared keys"
