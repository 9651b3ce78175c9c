#!/usr/bin/env bash
# The GPU checks that need a GPU, in one go (device time is scarce):
#   tests/gpu/gpu_checks.sh OUTDIR BUILDDIR NRANDOM SECONDS_SCALE [steps...]
# steps (default: fail parity bench memcheck racecheck initcheck):
#   fail parity bench        CUDA: failure paths, parity with the CPU, throughput
#   clparity clapi clbench   OpenCL (device named by $CL_DEVICE, default NVIDIA):
#                            the same parity program, the public-API parity
#                            (tests/opencl), throughput
#   clsoftcore clsoftparity clsoftapi clsoftbench   the same OpenCL checks with
#                            SPEEDQA_OPENCL_SOFT_F64=1 (soft doubles, math/f64.h):
#                            the math core, both parity programs, and the bench
#                            timing soft against hardware doubles (-f both)
#   memcheck racecheck initcheck  compute-sanitizer on the CUDA parity
#   par                      run the steps after it up to the next "seq" in parallel
# Environment: MAXSIZE (random case bound, 3840x2160), BENCH_SIZES (gpu_bench -s),
# PARITY_SECONDS (time budget of the random cases), SEED.
# BUILDDIR may hold just the programs (tests/gpu, tests/opencl) and, when the
# machine has no OpenCL ICD loader, lib/libOpenCL.so.1.
# Logs: OUTDIR/<step>.log; a summary line per step in OUTDIR/summary.txt.
set -u
OUT=${1:-/tmp/gpu-logs}; B=${2:-build}; NR=${3:-200}; SCALE=${4:-1}
shift 4 2>/dev/null || shift $#
STEPS=${*:-fail parity bench memcheck racecheck initcheck}
G=tests/data
SIZE=${MAXSIZE:-3840x2160}; W=${SIZE%x*}; H=${SIZE#*x}
CL_DEVICE=${CL_DEVICE:-NVIDIA}
mkdir -p "$OUT"
T=$B/tests/gpu
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
nvidia-smi -L > "$OUT/device.txt" 2>&1
case " $STEPS " in *" cl"*)
  # the NVIDIA OpenCL driver as an ICD; the loader from BUILDDIR/lib if none is installed
  mkdir -p /etc/OpenCL/vendors
  for l in /usr/lib/libnvidia-opencl.so /usr/lib/libnvidia-opencl.so.1 \
           /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/local/nvidia/lib64/libnvidia-opencl.so.1; do
    [ -e "$l" ] && { echo "$l" > /etc/OpenCL/vendors/nvidia.icd; break; }
  done
  ldconfig -p | grep -q 'libOpenCL.so.1 ' || export LD_LIBRARY_PATH=$PWD/$B/lib:${LD_LIBRARY_PATH:-}
  { for f in /etc/OpenCL/vendors/*.icd; do echo "$f: $(cat "$f")"; done
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"; } >> "$OUT/device.txt" 2>&1 ;;
esac
export XDG_CACHE_HOME=/tmp/sq-cache
run() { # name seconds command...
  local name=$1 secs=$2; shift 2
  local t0=$(date +%s)
  timeout $(( secs * SCALE )) "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  printf "%-10s rc=%-3s %5ss  %s\n" "$name" "$rc" "$(( $(date +%s) - t0 ))" \
    "$(tail -n 1 "$OUT/$name.log")" >> "$OUT/summary.txt"
}
bg=0
for s in $STEPS; do
  case $s in
  par) bg=1; continue ;;
  seq) wait; bg=0; continue ;;
  fail) set -- run fail 60 $T/test_gpu_fail cuda ;;
  parity) set -- run parity 240 env SPEEDQA_PARITY_SECONDS=${PARITY_SECONDS:-0} \
      $T/test_gpu_parity cuda $G /tmp/sq-parity "$NR" ${SEED:-20261130} "$W" "$H" 8 ;;
  bench) set -- run bench 200 $T/gpu_bench cuda -t 8 -c 16 ${BENCH_SIZES:+-s $BENCH_SIZES} ;;
  clparity) set -- run clparity 240 env SPEEDQA_GPU_DEVICE="$CL_DEVICE" \
      SPEEDQA_PARITY_SECONDS=${PARITY_SECONDS:-0} \
      $T/test_gpu_parity opencl $G /tmp/sq-clparity "$NR" ${SEED:-20261130} "$W" "$H" 8 ;;
  clapi) set -- run clapi 240 env SPEEDQA_OPENCL_DEVICE="$CL_DEVICE" \
      SPEEDQA_PARITY_SECONDS=${PARITY_SECONDS:-0} SPEEDQA_PARITY_NO_ORACLE=1 \
      $B/tests/opencl/test_cl_parity $G /tmp/sq-clapi "$NR" ${SEED:-20261130} "$W" "$H" ;;
  clsoftcore) set -- run clsoftcore 120 env SPEEDQA_OPENCL_SOFT_F64=1 SPEEDQA_OPENCL_PLATFORM="$CL_DEVICE" \
      $B/tests/opencl/test_cl_core $G ;;
  clsoftparity) set -- run clsoftparity 300 env SPEEDQA_OPENCL_SOFT_F64=1 SPEEDQA_GPU_DEVICE="$CL_DEVICE" \
      SPEEDQA_PARITY_SECONDS=${PARITY_SECONDS:-0} \
      $T/test_gpu_parity opencl $G /tmp/sq-clsoftparity "$NR" ${SEED:-20261130} "$W" "$H" 8 ;;
  clsoftapi) set -- run clsoftapi 300 env SPEEDQA_OPENCL_SOFT_F64=1 SPEEDQA_OPENCL_DEVICE="$CL_DEVICE" \
      SPEEDQA_PARITY_SECONDS=${PARITY_SECONDS:-0} SPEEDQA_PARITY_NO_ORACLE=1 \
      $B/tests/opencl/test_cl_parity $G /tmp/sq-clsoftapi "$NR" ${SEED:-20261130} "$W" "$H" ;;
  clsoftbench) set -- run clsoftbench 240 $B/tests/opencl/opencl_bench -d "$CL_DEVICE" -s 1920x1080 \
      -g 4 -n 4000 -c 0 -f both ;;
  clbench) set -- run clbench 120 $B/tests/opencl/opencl_bench -d "$CL_DEVICE" -s 1920x1080 \
      -g 4 -n 4000 -c 8 ;;
  memcheck) set -- run memcheck 150 "$CS" --tool memcheck --leak-check full --error-exitcode 9 \
      $T/test_gpu_parity cuda - /tmp/sq-san 6 5 1920 1080 ;;
  racecheck) set -- run racecheck 90 "$CS" --tool racecheck --error-exitcode 9 \
      $T/test_gpu_parity cuda - /tmp/sq-san 2 5 480 360 ;;
  initcheck) set -- run initcheck 150 "$CS" --tool initcheck --error-exitcode 9 \
      $T/test_gpu_parity cuda - /tmp/sq-san 6 5 1920 1080 ;;
  *) echo "unknown step $s" >> "$OUT/summary.txt"; continue ;;
  esac
  if [ $bg = 1 ]; then "$@" & else "$@"; fi
done
wait
cat "$OUT/summary.txt"
