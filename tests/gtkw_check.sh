#!/usr/bin/env bash
# gtkw_check.sh SSDSIM REPO DIR: every signal and filter file that waves/nand.gtkw
# names exists in a VCD of the default run (so the ready-made view keeps opening).
set -eu
ssdsim="$1"; repo="$2"; dir="$3"
mkdir -p "$dir"
"$ssdsim" --set workload.kind=nand_ops --set report.timeline=false --set trace.vcd="$dir/default.vcd" >/dev/null
# Full names of the VCD's variables: scopes joined with dots, plus the bit range.
awk '$1=="$scope"{s[++n]=$3} $1=="$upscope"{n--} $1=="$var"{p=""; for(i=1;i<=n;i++) p=p s[i] "."; r=($6=="$end")?"":$6; print p $5 r} $1=="$enddefinitions"{exit}' \
  "$dir/default.vcd" | sort -u > "$dir/vars.txt"
missing=0
while read -r sig; do
  grep -qxF -- "$sig" "$dir/vars.txt" || { echo "waves/nand.gtkw: no such signal in the VCD: $sig"; missing=1; }
done < <(sed -n 's/^+{[^}]*} //p; /^ssd\./p' "$repo/waves/nand.gtkw")
while read -r f; do
  [ -f "$repo/$f" ] || { echo "waves/nand.gtkw: no such filter file: $f"; missing=1; }
done < <(sed -n 's/^\^[0-9]* //p' "$repo/waves/nand.gtkw")
n=$(grep -c '^ssd\.\|^+{' "$repo/waves/nand.gtkw")
[ "$missing" -eq 0 ] && echo "all $n signals of waves/nand.gtkw are in the VCD"
