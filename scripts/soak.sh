#!/usr/bin/env bash
# The integrity soak (a benchmark, not a test): every scheduler combination (the
# scheduler block IOS, HOS, HOS with read-first; the host's NOOP, RWS, PIQ_R, PIQ_W, PIQ)
# on a tiny device (16 blocks of 8 pages per plane: GC runs all the time) and on the
# default 256 GiB device (aged, 90 % full), with mixed unaligned request sizes; every
# read checked and every logical page audited after each run (report.audit). Prints a
# row per run and the totals: page reads checked and mismatches (read and audit).
#   bash scripts/soak.sh                 (at least 10^7 checked reads in all)
#   SOAK_SCALE=0.1 bash scripts/soak.sh  (a tenth of the requests)
#   SOAK_SET=sos bash scripts/soak.sh    (Fig. 6's five settings, IOS, HOS, SOS (QSL),
#     SOS (WHM), SOS, on the tiny device and on the `sos` preset's, hot pages (Zipf 0.9) so
#     that WHM cancels and QSL moves under GC, at the default firmware costs: at least
#     10^6 checked reads per run, checked)
#   SOAK_SET=reschedule bash scripts/soak.sh  (controller.reschedule = multiplane, pipeline
#     and both, on the tiny device and on the `park` preset's, scaled as for placement, and
#     both with read-first on the tiny device: at least 10^6 checked reads per run, checked)
#   SOAK_SET=rtl bash scripts/soak.sh    (controller.rtl = check with each
#     controller.reschedule setting on the tiny device and the scaled park device: the
#     Verilog block beside the C++ block at every decision edge, at least 10^6 decisions
#     compared per run, and every read checked)
#   SSDSIM=path/to/ssdsim ...            (soak that binary; nothing is built)
#   SOAK_SET=faults bash scripts/soak.sh  (a NAND that fails: bad blocks, program and erase
#     failures, read retries, at elevated rates, on the tiny device (32 blocks a plane) and
#     the default device, IOS, HOS and SOS: at least 10^6 checked reads per run, 0
#     mismatches, uncorrectable reads reported as errors, the audit right)
#   SOAK_SET=power bash scripts/soak.sh  (seeded power cuts, probed: 54 runs of 500 cuts
#     drawn (27,000) over three small devices, every write cache mode, IOS, HOS, SOS with its
#     write-hit cancels, and failing programs and erases, then the map log at three
#     checkpoint intervals; 0 durable writes lost, 0 pages off the contract, 0 mismatches,
#     and with the cache off or plp nothing acknowledged lost and nothing out of order.
#     Writes campaign.csv, recovery.png and recovery_journal.png into SOAK_OUT, default
#     ./power_campaign: scripts/ssdexp/power_campaign.py)
#   SOAK_SET=placement bash scripts/soak.sh  (every ftl.write_policy, with batching into
#     n-plane commands, on the tiny device and on the `delay` and `park` presets' devices,
#     scaled down to 64 blocks per plane (15 % over-provisioning, 90 % full): at least 10^6 checked reads per
#     run, checked)
# Runs as many at once as the machine has cores. Exit 1 if any run failed or any
# mismatch was found.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scale="${SOAK_SCALE:-1}"
if ! [[ "$scale" =~ ^[0-9]*\.?[0-9]+$ ]] || awk -v s="$scale" 'BEGIN { exit !(s <= 0) }'; then
  echo "scripts/soak.sh: SOAK_SCALE must be a number > 0, not '$scale'" >&2; exit 2
fi
# SSDSIM: a built ssdsim to soak (nothing built); else the project's build, brought up to date.
if [ -n "${SSDSIM:-}" ]; then
  ssdsim="$SSDSIM"
else
  bash "$root/scripts/build.sh"
  ssdsim="${BUILD_DIR:-$root/build}/ssdsim"
fi
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

requests() { awk -v n="$1" -v s="$scale" 'BEGIN { r = int(n * s); print (r < 1 ? 1 : r) }'; }
tiny=(--set nand.channels=2 --set nand.chips_per_channel=2 --set nand.dies_per_chip=1
      --set nand.planes_per_die=2 --set nand.blocks_per_plane=16 --set nand.pages_per_block=8
      --set nand.page_bytes=4096 --set ftl.overprovisioning=0.25 --set ftl.precondition=0.5
      --set workload.size_bytes=512 --set workload.size_max_bytes=32768 --set workload.align_bytes=512
      --set workload.requests="$(requests 200000)")
large=(--set ftl.precondition=0.9 --set workload.size_bytes=4096 --set workload.size_max_bytes=65536
       --set workload.align_bytes=4096 --set workload.queue_depth=64 --set controller.ncq_depth=64
       --set workload.requests="$(requests 160000)")
# The SOS set: the tiny device's requests raised and the `sos` preset's device (2 KiB
# pages, 90 % full), for at least 10^6 checked reads per run.
sos_tiny=("${tiny[@]}" --set workload.requests="$(requests 450000)" --set workload.zipf_theta=0.9)
sos_dev=(--preset sos --set ftl.precondition=0.9 --set workload.size_bytes=512 --set workload.size_max_bytes=32768
         --set workload.align_bytes=512 --set workload.zipf_theta=0.9 --set workload.requests="$(requests 300000)")
# The placement set: the tiny device's requests raised; Chen's and Park's devices with
# fewer blocks (GC must run within the run).
place_tiny=("${tiny[@]}" --set workload.requests="$(requests 450000)")
place_delay=(--preset delay --set nand.blocks_per_plane=64 --set ftl.overprovisioning=0.15 --set ftl.precondition=0.9 --set workload.size_bytes=512
             --set workload.size_max_bytes=32768 --set workload.align_bytes=512 --set workload.requests="$(requests 450000)")
place_park=(--preset park --set nand.blocks_per_plane=64 --set ftl.overprovisioning=0.15 --set ftl.precondition=0.9 --set workload.size_bytes=512
            --set workload.size_max_bytes=32768 --set workload.align_bytes=512 --set workload.requests="$(requests 300000)")
rtl_park=("${place_park[@]}" --set workload.requests="$(requests 800000)")
# The faults set: a NAND that fails at rates far above a real one's (factory bad blocks,
# program and erase failures, bit errors that need read retries and soft reads), on the
# tiny device with twice its blocks and on the default device; every scheduler.
faults=(--set nand.fault.rber_new=0.003 --set nand.fault.rber_eol=0.04 --set nand.fault.rber_sigma=0.4
        --set nand.fault.retry_gain=0.7 --set nand.fault.wear_cycles=2000 --set nand.fault.program_fail_new=0.0002
        --set nand.fault.erase_fail_new=0.0005 --set nand.fault.bad_block_fraction=0.07 --set workload.trim_ratio=0.05)
fault_tiny=("${tiny[@]}" --set nand.blocks_per_plane=32 "${faults[@]}" --set workload.requests="$(requests 450000)")
fault_large=("${large[@]}" "${faults[@]}" --set nand.fault.program_fail_new=0.00005 --set nand.fault.erase_fail_new=0.0002
             --set workload.requests="$(requests 450000)")
set_name="${SOAK_SET:-schedulers}"
if [ "$set_name" = power ]; then
  py="$(bash "$root/scripts/pyenv.sh")"
  PYTHONPATH="$root/scripts${PYTHONPATH:+:$PYTHONPATH}" exec "$py" -m ssdexp.power_campaign "$ssdsim" \
    "${SOAK_OUT:-power_campaign}" "$scale"
fi
min_reads=0
min_compared=0
jobs=()
case "$set_name" in
  schedulers)
    for geo in tiny large; do
      for dev in ios hos hos_read_first; do
        for hs in noop rws piq_r piq_w piq; do jobs+=("$geo $dev $hs"); done
      done
    done ;;
  sos)
    min_reads=$(requests 1000000)
    for geo in sos_tiny sos_dev; do
      for dev in ios hos sos_qsl sos_whm sos; do jobs+=("$geo $dev noop"); done
    done ;;
  placement)
    min_reads=$(requests 1000000)
    for geo in place_tiny place_delay place_park; do
      for wp in static rr weight delay sqf setf stripe; do jobs+=("$geo wp_$wp noop"); done
    done ;;
  reschedule)
    min_reads=$(requests 1000000)
    for geo in place_tiny place_park; do
      for rs in multiplane pipeline both; do jobs+=("$geo rs_$rs noop"); done
    done
    jobs+=("place_tiny rs_both_read_first noop") ;;
  rtl)
    min_compared=$(requests 1000000)
    for geo in place_tiny rtl_park; do
      for rs in multiplane pipeline both; do jobs+=("$geo rtl_$rs noop"); done
    done ;;
  faults)
    min_reads=$(requests 1000000)
    for geo in fault_tiny fault_large; do
      for dev in ios hos sos; do jobs+=("$geo $dev noop"); done
    done ;;
  *) echo "scripts/soak.sh: SOAK_SET is schedulers, sos, placement, reschedule, rtl, faults or power, not '$set_name'" >&2; exit 2 ;;
esac

run_one() {  # run_one GEO DEV HS
  local geo="$1" dev="$2" hs="$3" dir="$out/$1_$2_$3" args
  case "$geo" in
    tiny) args=("${tiny[@]}") ;;
    large) args=("${large[@]}") ;;
    sos_tiny) args=("${sos_tiny[@]}") ;;
    place_tiny) args=("${place_tiny[@]}") ;;
    place_delay) args=("${place_delay[@]}") ;;
    place_park) args=("${place_park[@]}") ;;
    rtl_park) args=("${rtl_park[@]}") ;;
    fault_tiny) args=("${fault_tiny[@]}") ;;
    fault_large) args=("${fault_large[@]}") ;;
    *) args=("${sos_dev[@]}") ;;
  esac
  local sos=(--set controller.scheduler=pass --set controller.firmware_sched=sos)
  case "$dev" in
    hos_read_first) args+=(--set controller.scheduler=hos --set controller.read_first=true) ;;
    sos_qsl) args+=("${sos[@]}" --set controller.sos_qsl=true --set controller.sos_whm=false) ;;
    sos_whm) args+=("${sos[@]}" --set controller.sos_qsl=false --set controller.sos_whm=true) ;;
    sos) args+=("${sos[@]}" --set controller.sos_qsl=true --set controller.sos_whm=true) ;;
    wp_*) args+=(--set ftl.write_policy="${dev#wp_}") ;;
    rs_both_read_first) args+=(--set controller.reschedule=both --set controller.read_first=true) ;;
    rs_*) args+=(--set controller.reschedule="${dev#rs_}") ;;
    rtl_*) args+=(--set controller.reschedule="${dev#rtl_}" --set controller.rtl=check) ;;
    *) args+=(--set controller.scheduler="$dev") ;;
  esac
  # One core per run: the lookahead thread would take the other runs' cores.
  local rc=0
  "$ssdsim" "${args[@]}" --set host.scheduler="$hs" --set workload.read_ratio=0.5 --set workload.seed=7 \
    --set host.lookahead_thread=false --set report.audit=true --out "$dir" > "$dir.log" 2>&1 || rc=$?
  echo "$rc" > "$dir.rc"
}
export -f run_one requests
export ssdsim out scale
export tiny_s="${tiny[*]}" large_s="${large[*]}" sos_tiny_s="${sos_tiny[*]}" sos_dev_s="${sos_dev[*]}"
export place_tiny_s="${place_tiny[*]}" place_delay_s="${place_delay[*]}" place_park_s="${place_park[*]}"
export rtl_park_s="${rtl_park[*]}" fault_tiny_s="${fault_tiny[*]}" fault_large_s="${fault_large[*]}"
cores="$(nproc)"
running=0
for j in "${jobs[@]}"; do
  # shellcheck disable=SC2086
  ( tiny=($tiny_s); large=($large_s); sos_tiny=($sos_tiny_s); sos_dev=($sos_dev_s); place_tiny=($place_tiny_s)
    place_delay=($place_delay_s); place_park=($place_park_s); rtl_park=($rtl_park_s); fault_tiny=($fault_tiny_s)
    fault_large=($fault_large_s); run_one $j ) &
  running=$((running + 1))
  if [ "$running" -ge "$cores" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true

field() { sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -n 1; }
printf '%-11s %-18s %-6s %9s %12s %10s %12s %10s %6s %9s %10s %9s %9s %12s\n' geom device host requests reads_checked \
  mismatches audited_pages audit_bad gc_erases qsl_moves write_hits mp_pages rs_merged rtl_compared
total_reads=0; total_bad=0; failed=0
for j in "${jobs[@]}"; do
  set -- $j
  dir="$out/$1_$2_$3"
  rc=$(cat "$dir.rc" 2>/dev/null || echo "none")
  if [ "$rc" != 0 ] || [ ! -f "$dir/stats.json" ]; then
    echo "$1 $2 $3: FAILED (exit $rc):"; tail -n 5 "$dir.log" 2>/dev/null; failed=$((failed + 1)); continue
  fi
  s="$dir/stats.json"
  r=$(field "$s" reads_checked); m=$(field "$s" mismatches); a=$(field "$s" audited_pages)
  am=$(field "$s" audit_mismatches); e=$(field "$s" gc_erases); n=$(field "$s" requests)
  q=$(field "$s" qsl_moves); w=$(field "$s" write_hits); mp=$(field "$s" multiplane_pages)
  rm_=$(field "$s" merged_parts); rc_=$(field "$s" rtl_decisions_compared)
  printf '%-11s %-18s %-6s %9s %12s %10s %12s %10s %6s %9s %10s %9s %9s %12s\n' "$1" "$2" "$3" "$n" "$r" "$m" "$a" "$am" \
    "$e" "${q:--}" "${w:--}" "${mp:--}" "${rm_:--}" "${rc_:--}"
  if [ "$r" -lt "$min_reads" ]; then
    echo "$1 $2 $3: only $r page reads checked, fewer than $min_reads"; failed=$((failed + 1))
  fi
  if [ "${rc_:-0}" -lt "$min_compared" ]; then
    echo "$1 $2 $3: only ${rc_:-0} decisions compared with the Verilog block, fewer than $min_compared"; failed=$((failed + 1))
  fi
  hu=$(field "$s" host_pages_unrecovered)
  if [ -n "$hu" ]; then  # with faults: what failed and how it was recovered
    echo "  faults: $(field "$s" program_failures) program and $(field "$s" erase_failures) erase failures," \
         "$(field "$s" grown_bad_blocks) grown and $(field "$s" factory_bad_blocks) factory bad blocks," \
         "$(field "$s" retry_reads) retries, $(field "$s" uncorrectable_reads) uncorrectable reads," \
         "$hu host pages reported lost, $(field "$s" refused_writes) writes refused read-only"
    # Every page the firmware could not recover reached the host as an error.
    if [ "$hu" != "$(field "$s" unrecovered_pages)" ]; then
      echo "$1 $2 $3: $hu host pages unrecovered, the host saw $(field "$s" unrecovered_pages)"; failed=$((failed + 1))
    fi
  fi
  total_reads=$((total_reads + r)); total_bad=$((total_bad + m + am))
done
echo "soak: $total_reads page reads checked, $total_bad mismatches, $failed of ${#jobs[@]} runs failed"
[ "$failed" -eq 0 ] && [ "$total_bad" -eq 0 ]
