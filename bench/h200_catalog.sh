#!/usr/bin/env bash
# Issue #15-#17 checks and figures on the lent H200 machine, in one call:
#   bench/h200_catalog.sh OUTDIR BUILDDIR [checks|figures|all]
# GPU parity after the ladder change (CUDA, NVIDIA OpenCL), the ladder API on
# 16 cores, semi-planar pictures on CUDA, the Python package's device arrays,
# and bench/catalog_bench.py (ladder, 200-pair batch: CPU and CUDA). Logs in OUTDIR.
set -u
OUT=$1; B=$2; PART=${3:-all}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$B/lib:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
step() { local name=$1; shift; local t0=$SECONDS; timeout 300 "$@" > "$OUT/$name.log" 2>&1; local rc=$?
         echo "$name: rc $rc, $((SECONDS - t0)) s" >> "$OUT/summary.txt"; }
{ nproc; nvidia-smi -L; python3 --version; } > "$OUT/machine.txt" 2>&1
if [ "$PART" != figures ]; then
step gpu_checks tests/gpu/gpu_checks.sh "$OUT/gpu" "$B" 60 1 par parity clparity seq fail
step ladder_api "$B/tests/test_ladder"
step semiplanar_cuda "$B/tests/gpu/test_semiplanar" cuda
step semiplanar_opencl env SPEEDQA_OPENCL_DEVICE=NVIDIA "$B/tests/gpu/test_semiplanar" opencl
if [ -d python/tests ]; then
  step python env PYTHONPATH=python SPEEDQA_LIB=$PWD/$B/src/libspeedqa.so.0.2 \
      SPEEDQA_CLI=$PWD/$B/tools/speedqa python3 -m pytest -q -rs python/tests
fi
step python_device_bench env PYTHONPATH=python \
    SPEEDQA_LIB=$PWD/$B/src/libspeedqa.so.0.2 python3 python/bench_device.py "$B"
fi
if [ "$PART" != checks ]; then
step cli_ladder python3 tests/cli/ladder_test.py ladder "$B/tools/speedqa" tests/data /tmp/lt
step cli_batch python3 tests/cli/ladder_test.py batch "$B/tools/speedqa" tests/data /tmp/bt
step catalog python3 bench/catalog_bench.py "$B/tools/speedqa" tests/data /tmp/cat --backends cpu,cuda --reps 3
step dask env PYTHONPATH=python SPEEDQA_LIB=$PWD/$B/src/libspeedqa.so.0.2 python3 bench/dask_bench.py \
    "$B/tools/speedqa" tests/data /tmp/dask --pairs 64 --frames 48
fi
cat "$OUT/summary.txt"
tail -4 "$OUT/catalog.log" "$OUT/python_device_bench.log" "$OUT/dask.log"
tar czf "$OUT/logs.tgz" -C "$OUT" --exclude logs.tgz . 2>/dev/null
