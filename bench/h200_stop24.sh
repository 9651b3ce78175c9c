#!/usr/bin/env bash
# Device calls of this stop (H200 machine, repo root, .lav carried):
#   bash bench/h200_stop24.sh OUT [STEP ...]
# nvdec: the NVDEC tests (builds build-nv against the carried libav);
# nvbench: the same and bench/nvdec_bench.py (4 streams at once: NVDEC and
#   software decode, CUDA and CPU scoring; batches of $NVDEC_BATCH_PAIRS);
# ab1080 / ab2160: the --hwaccel batch against its floor in interleaved
#   rounds (bench/nvdec_batch_ab.py; $AB_SETTINGS passes through);
# open: the CUDA start-up split at batch 32 and 8 (SPEEDQA_GPU_BATCH);
# cli: the 1080p CLI against the read floor, CUDA at batch 32 and 16 (the default);
# cli4k: the same at 2160p 10-bit, 300 frames (CPU 16 threads and CUDA);
# pictures: test_picture on CUDA, and api_threads (lent, copied and library
#   pictures, 1080p) on CUDA and on the CPU;
# gpubatch: gpu_bench at 1080p and 2160p for batch 32, 16 and 8;
# kernels: checkkernel and the golden suite at every CPU mask, the API bench.
# Default: every step. Logs tarred into OUT.
set -u
OUT=${1:-/tmp/h200}; shift; mkdir -p "$OUT/l"; L=$OUT/l
STEPS=${*:-nvbench ab1080 ab2160 open cli pictures gpubatch kernels}
T0=$SECONDS
step() { local n=$1 t=$2; shift 2; local s=$SECONDS
         timeout "$t" "$@" > "$L/$n.log" 2>&1; echo "== $n: rc $? in $((SECONDS - s)) s (at $((SECONDS - T0)) s)"; }
S=$PWD/build-nv/tools/speedqa
for st in $STEPS; do
    export LD_LIBRARY_PATH=/tmp/speedqa-lav/libav/lib:/usr/local/nvidia/lib64
    export PATH=/usr/local/cuda/bin:$PATH
    case $st in
    nvdec) step nvdec 200 bash bench/h200_nvdec.sh "$L/nvdec" tests
           grep -E "^test|^FAIL|^== done" "$L/nvdec.log" | head -20 ;;
    nvbench) step nvbench 480 bash bench/h200_nvdec.sh "$L/nvdec"
           grep -vE "^$" "$L/nvbench.log" | tail -45 ;;
    ab1080) step ab1080 200 env AB_CLIPS=h264_1080p python3 bench/nvdec_batch_ab.py "$S" .lav/clips/bench "$L/ab" 64 2
           cat "$L/ab1080.log"; rm -f "$L"/ab/*.jsonl ;;
    ab2160) step ab2160 120 env AB_CLIPS=hevc10_2160p python3 bench/nvdec_batch_ab.py "$S" .lav/clips/bench "$L/ab" 32 2
           cat "$L/ab2160.log"; rm -f "$L"/ab/*.jsonl ;;
    open) step build_ot 120 ninja -C build-nv bench/open_time
          step open 60 sh -c 'for b in 32 8 32 8; do echo "batch $b"; SPEEDQA_GPU_BATCH=$b build-nv/bench/open_time cuda 1920x1080; done'
          cat "$L/open.log" ;;
    cli) for b in 32 16; do
             step cli_b$b 150 env SPEEDQA_GPU_BATCH=$b python3 bench/cli_throughput.py "$S" --frames 1000 --threads 16 --backends cuda --gpu-threads 16
             cat "$L/cli_b$b.log"
         done
         rm -rf /dev/shm/sq-cli-bench-* ;;
    cli4k) step cli4k 300 python3 bench/cli_throughput.py "$S" --size 2160p10 --frames 300 --threads 16 --backends cuda --gpu-threads 16
           cat "$L/cli4k.log"; rm -rf /dev/shm/sq-cli-bench-* ;;
    pictures) step build_p 200 ninja -C build-nv tests/gpu/test_picture bench/api_threads
          step picture_cuda 200 build-nv/tests/gpu/test_picture cuda
          grep -cE "^ok" "$L/picture_cuda.log"; grep -E "^FAIL|passed|FAILED|skip" "$L/picture_cuda.log" | head
          step api_cuda 200 build-nv/bench/api_threads --backend cuda --threads 1,4,16 --frames 480
          cat "$L/api_cuda.log"
          step api_cpu 200 build-nv/bench/api_threads --backend cpu --threads 1,16 --frames 480
          cat "$L/api_cpu.log" ;;
    gpubatch) step build_gb 120 ninja -C build-nv tests/gpu/gpu_bench
          for b in 32 16 8; do
              step gpu_b$b 90 env SPEEDQA_GPU_BATCH=$b build-nv/tests/gpu/gpu_bench cuda -s 1920x1080,3840x2160 -c 16
              grep -iE "fps|batch|both" "$L/gpu_b$b.log" | head -24
          done ;;
    kernels) step build_k 200 ninja -C build-nv
          step kernels 200 sh -c 'build-nv/tests/checkkernel/checkkernel | tail -3; for m in 0 1 3 31; do SPEEDQA_CPU_MASK=$m meson test -C build-nv --suite golden 2>&1 | grep -E "^(Ok|Fail):"; done; meson test -C build-nv --suite gpu 2>&1 | grep -E "^(Ok|Fail|Skipped):"'
          cat "$L/kernels.log"
          step api1 60 build-nv/bench/speedqa_bench --api-only --reps 10
          tail -8 "$L/api1.log" ;;
    esac
done
tar -C "$OUT" -cJf "$OUT/logs.tar.xz" l && rm -rf "$L"
