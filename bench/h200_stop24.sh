#!/usr/bin/env bash
# One device call (H200 machine, repo root, .lav carried): the NVDEC tests,
# the --hwaccel batch against its floor with and without the next pair
# opened ahead (bench/nvdec_batch_ab.py), and the CUDA start-up and whole
# job at two batch sizes (SPEEDQA_GPU_BATCH 32 and 8: the pinned staging).
# Logs tarred into OUT.
set -u
OUT=${1:-/tmp/h200}; mkdir -p "$OUT/l"; L=$OUT/l
T0=$SECONDS
step() { local n=$1 t=$2; shift 2; local s=$SECONDS
         timeout "$t" "$@" > "$L/$n.log" 2>&1; echo "== $n: rc $? in $((SECONDS - s)) s (at $((SECONDS - T0)) s)"; }
step nvdec 200 bash bench/h200_nvdec.sh "$L/nvdec" tests
grep -E "^test|^FAIL|^== done" "$L/nvdec.log" | head -20
export LD_LIBRARY_PATH=/tmp/speedqa-lav/libav/lib:/usr/local/nvidia/lib64
export PATH=/usr/local/cuda/bin:$PATH
S=$PWD/build-nv/tools/speedqa
step ab1080 200 env AB_CLIPS=h264_1080p python3 bench/nvdec_batch_ab.py "$S" .lav/clips/bench "$L/ab" 64 2
cat "$L/ab1080.log"
step ab2160 80 env AB_CLIPS=hevc10_2160p python3 bench/nvdec_batch_ab.py "$S" .lav/clips/bench "$L/ab" 32 1
cat "$L/ab2160.log"; rm -f "$L"/ab/*.jsonl
step build 120 ninja -C build-nv bench/open_time
step open_time 60 sh -c 'for b in 32 8 32 8; do echo "batch $b"; SPEEDQA_GPU_BATCH=$b build-nv/bench/open_time cuda 1920x1080; done'
cat "$L/open_time.log"
for b in 32 8; do
    step cli_b$b 150 env SPEEDQA_GPU_BATCH=$b python3 bench/cli_throughput.py "$S" --frames 1000 --threads 16 --backends cuda --gpu-threads 16
    cat "$L/cli_b$b.log"
done
rm -rf /dev/shm/sq-cli-bench-*
tar -C "$OUT" -cJf "$OUT/logs.tar.xz" l && rm -rf "$L"
