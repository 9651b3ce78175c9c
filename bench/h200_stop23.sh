#!/usr/bin/env bash
# One device call for the figures of this stop's closing note (H200 machine,
# repo root, .lav carried): NVDEC tests + bench, the GPU start-up split,
# CPU kernels and golden suites on that host's AVX-512, the CLI against the
# read floor (1080p, 1000 frames, CPU 16 threads and CUDA), the Python
# device-array bench. Each step has a time limit; logs tarred into OUT.
set -u
OUT=${1:-/tmp/h200}; mkdir -p "$OUT/l"; L=$OUT/l
export PATH=/usr/local/cuda/bin:$PATH
T0=$SECONDS
step() { local n=$1 t=$2; shift 2; local s=$SECONDS
         timeout "$t" "$@" > "$L/$n.log" 2>&1; echo "== $n: rc $? in $((SECONDS - s)) s (at $((SECONDS - T0)) s)"; }
step nvdec 240 bash bench/h200_nvdec.sh "$L/nvdec"
grep -E "^test|^FAIL|PASS|FAIL |^h264|^hevc" "$L/nvdec.log" | head -40
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64
step build 200 ninja -C build-nv
step open_time 60 sh -c 'for a in "cuda 1920x1080" "cuda 1920x1080" "cuda 3840x2160"; do build-nv/bench/open_time $a; done'
cat "$L/open_time.log"
step kernels 120 sh -c 'build-nv/tests/checkkernel/checkkernel | tail -3; for m in 0 1 3 31; do SPEEDQA_CPU_MASK=$m meson test -C build-nv --suite golden 2>&1 | grep -E "^(Ok|Fail):"; done'
cat "$L/kernels.log"
step api1 60 build-nv/bench/speedqa_bench --api-only --reps 10
tail -8 "$L/api1.log"
step cli1080 200 python3 bench/cli_throughput.py build-nv/tools/speedqa --frames 1000 --threads 1,16 --backends cuda --gpu-threads 16
tail -16 "$L/cli1080.log"; rm -rf /dev/shm/sq-cli-bench-*
step python 60 env PYTHONPATH=python SPEEDQA_LIB=$PWD/build-nv/src/libspeedqa.so.0.2 python3 python/bench_device.py build-nv 8000
tail -3 "$L/python.log"
tar -C "$OUT" -cJf "$OUT/logs.tar.xz" l && rm -rf "$L"
