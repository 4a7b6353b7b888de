#!/usr/bin/env bash
# gtkwave_screenshot.sh SSDSIM WORKDIR PNG [ARGS...]: runs `ssdsim ARGS` traced with
# --out WORKDIR/run, opens the generated view in GTKWave on a headless X server (Xvfb,
# 1600x1000), waits until the drawing is still, and saves the screen as PNG (xwd, then
# ImageMagick). Fails unless the picture is 1600x1000 with more than 20 colours (a blank
# or unpainted window has a handful).
set -euo pipefail
ssdsim="$1"; work="$2"; png="$3"; shift 3
mkdir -p "$work"
cd "$work"
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$ssdsim" "$@" --set trace.vcd=trace.vcd --out run >run.log
export WORK="$PWD"
xvfb-run -a -s "-screen 0 1600x1000x24" bash -c '
  gtkwave "$WORK/run/view.gtkw" >"$WORK/gtkwave.log" 2>&1 &
  pid=$!
  prev=""
  for i in $(seq 1 40); do
    sleep 1
    xwd -root -silent -out "$WORK/shot.xwd"
    sum=$(md5sum <"$WORK/shot.xwd")
    [ "$sum" = "$prev" ] && break
    prev="$sum"
  done
  kill $pid'
convert "xwd:$work/shot.xwd" "$png"
read -r w h colours < <(identify -format '%w %h %k\n' "$png")
if [ "$w" != 1600 ] || [ "$h" != 1000 ] || [ "$colours" -le 20 ]; then
  echo "gtkwave_screenshot: $png is ${w}x${h} with $colours colours: not a drawn view"
  exit 1
fi
if grep -q "Could not open filter file" "$work/gtkwave.log"; then
  echo "gtkwave_screenshot: GTKWave could not open a filter file"; exit 1
fi
echo "gtkwave_screenshot: $png, ${w}x${h}, $colours colours"
