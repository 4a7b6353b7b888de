#!/usr/bin/env bash
# scripts/datasheet.sh as a user runs it, on few requests: the mx500 preset's table,
# every corner with the datasheet's figure and a model figure beside it.
set -euo pipefail
ssdsim="$1"; root="$2"; work="$3"
rm -rf "$work"
table="$(SSDSIM="$ssdsim" OUT="$work" REQUESTS=500 bash "$root/scripts/datasheet.sh")"
echo "$table"
for row in "sequential read 128 KiB | 560 MB/s" "sequential write 128 KiB | 510 MB/s" \
           "random read 4 KiB | 95,000 IOPS" "random write 4 KiB | 90,000 IOPS"; do
  grep -Eq "^\| $row \| [0-9,]+ (MB/s|IOPS) \([+-][0-9]+%\) \| [0-9,]+ " <<<"$table" || { echo "no row: $row"; exit 1; }
done
# A missing simulator is an error that names it, exit 2.
set +e
SSDSIM="$work/none" bash "$root/scripts/datasheet.sh" 2>"$work/err.txt"
rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q "no simulator at $work/none" "$work/err.txt" || { echo "missing simulator: rc $rc"; exit 1; }
