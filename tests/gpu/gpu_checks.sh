#!/usr/bin/env bash
# The CUDA checks that need a GPU, in one go (device time is scarce):
#   tests/gpu/gpu_checks.sh OUTDIR BUILDDIR NRANDOM SECONDS_SCALE [steps...]
# steps: fail parity bench memcheck racecheck initcheck (default: all).
# Logs: OUTDIR/<step>.log; a summary line per step in OUTDIR/summary.txt.
set -u
OUT=${1:-/tmp/gpu-logs}; B=${2:-build}; NR=${3:-200}; SCALE=${4:-1}
shift 4 2>/dev/null || shift $#
STEPS=${*:-fail parity bench memcheck racecheck initcheck}
G=tests/data
mkdir -p "$OUT"
T=$B/tests/gpu
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi -L > "$OUT/device.txt" 2>&1
run() { # name seconds command...
  local name=$1 secs=$2; shift 2
  local t0=$(date +%s)
  timeout $(( secs * SCALE )) "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  printf "%-10s rc=%-3s %5ss  %s\n" "$name" "$rc" "$(( $(date +%s) - t0 ))" \
    "$(tail -n 1 "$OUT/$name.log")" >> "$OUT/summary.txt"
}
for s in $STEPS; do
  case $s in
  fail) run fail 60 $T/test_gpu_fail cuda ;;
  parity) run parity 240 $T/test_gpu_parity cuda $G /tmp/sq-parity "$NR" ${SEED:-20261130} 3840 2160 12 ;;
  bench) run bench 200 $T/gpu_bench cuda -t 8 -c 16 ;;
  memcheck) run memcheck 150 "$CS" --tool memcheck --leak-check full --error-exitcode 9 \
      $T/test_gpu_parity cuda - /tmp/sq-san 6 5 1920 1080 ;;
  racecheck) run racecheck 90 "$CS" --tool racecheck --error-exitcode 9 \
      $T/test_gpu_parity cuda - /tmp/sq-san 2 5 480 360 ;;
  initcheck) run initcheck 150 "$CS" --tool initcheck --error-exitcode 9 \
      $T/test_gpu_parity cuda - /tmp/sq-san 6 5 1920 1080 ;;
  esac
done
cat "$OUT/summary.txt"
