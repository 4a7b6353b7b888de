#!/usr/bin/env bash
# gtkw_check.sh SSDSIM REPO DIR VIEW [ARGS...]: every signal and filter file that the
# ready-made view waves/VIEW names exists in a VCD of a run of the model with ARGS (so
# the view keeps opening).
set -eu
ssdsim="$1"; repo="$2"; dir="$3"; view="$4"; shift 4
mkdir -p "$dir"
vcd="$dir/${view%.gtkw}.vcd"
"$ssdsim" "$@" --set trace.vcd="$vcd" >/dev/null
# Full names of the VCD's variables: scopes joined with dots, plus the bit range.
awk '$1=="$scope"{s[++n]=$3} $1=="$upscope"{n--} $1=="$var"{p=""; for(i=1;i<=n;i++) p=p s[i] "."; r=($6=="$end")?"":$6; print p $5 r} $1=="$enddefinitions"{exit}' \
  "$vcd" | sort -u > "$dir/vars.txt"
missing=0
while read -r sig; do
  grep -qxF -- "$sig" "$dir/vars.txt" || { echo "waves/$view: no such signal in the VCD: $sig"; missing=1; }
done < <(sed -n 's/^+{[^}]*} //p; /^ssd\./p' "$repo/waves/$view")
while read -r f; do
  [ -f "$repo/$f" ] || { echo "waves/$view: no such filter file: $f"; missing=1; }
done < <(sed -n 's/^\^[0-9]* //p' "$repo/waves/$view")
n=$(grep -c '^ssd\.\|^+{' "$repo/waves/$view")
[ "$missing" -eq 0 ] && echo "all $n signals of waves/$view are in the VCD"
