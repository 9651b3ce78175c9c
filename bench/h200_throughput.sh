#!/usr/bin/env bash
# The throughput figures of issue #12 on the lent H200 machine, in one call:
#   bench/h200_throughput.sh OUTDIR BUILDDIR [1080p frames] [4K frames]
# API scaling (bench/api_threads), CLI against the read floor at 1080p 8-bit
# and 2160p 10-bit (bench/cli_throughput.py, CPU and CUDA), and the lent
# picture test on CUDA and NVIDIA's OpenCL. Logs in OUTDIR.
set -u
OUT=$1; B=$2; N1=${3:-1000}; N4=${4:-120}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$B/lib:${LD_LIBRARY_PATH:-}
mkdir -p /etc/OpenCL/vendors
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
{ nproc; lscpu | grep -E "Model name|^Flags" | sed 's/\(Flags:\).*\(avx512[a-z]*\).*/\1 ... \2 .../'
  nvidia-smi -L; } > "$OUT/machine.txt" 2>&1
"$B/tests/gpu/test_lend" cuda > "$OUT/lend-cuda.log" 2>&1; echo "lend cuda: $?" >> "$OUT/summary.txt"
SPEEDQA_OPENCL_DEVICE=NVIDIA "$B/tests/gpu/test_lend" opencl > "$OUT/lend-opencl.log" 2>&1
echo "lend opencl: $?" >> "$OUT/summary.txt"
"$B/bench/api_threads" --frames 240 --threads 1,2,4,8,16 > "$OUT/api_threads.txt" 2>&1
python3 bench/cli_throughput.py "$B/tools/speedqa" --frames "$N1" --threads 1,2,4,8,16 \
    --backends cuda --gpu-threads 1,4,8,16 > "$OUT/cli_1080p.txt" 2>&1
rm -rf /var/tmp/sq-cli-bench-1080p8-*
python3 bench/cli_throughput.py "$B/tools/speedqa" --frames "$N4" --size 2160p10 \
    --threads 1,4,16 --backends cuda --gpu-threads 4,16 > "$OUT/cli_2160p10.txt" 2>&1
rm -rf /var/tmp/sq-cli-bench-*
cat "$OUT/summary.txt"
