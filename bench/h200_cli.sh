#!/usr/bin/env bash
# Device steps for CLI throughput on the lent H200 machine (run from the repo root):
#   bash bench/h200_cli.sh OUT [STEP ...]
# build: build-nv, release, CUDA (and NVIDIA's OpenCL ICD registered);
# probe: bench/cuda_startup_probe.py, the driver's own start-up and close
#   costs call by call, 3 fresh processes and one with --overlap;
# open: bench/open_time cuda at 1080p (the library's start-up split), twice;
# cli: bench/cli_throughput.py, 1080p 8-bit 1,000 frames, CPU 16 threads
#   and CUDA against the two-cat floor;
# times: SPEEDQA_TIMES=1 stage lines of the CUDA and CPU CLI on that pair;
# pair: the 1080p 1,000-frame pair of the cli step, written only;
# old: builds the speedqa of old.tar (carried: git archive -o old.tar REV), for ab/ab4k/api;
# ab / ab4k: bench/cli_ab.py, old against new and the floor, CUDA (and CPU 16 threads);
# api: bench/api_threads on CUDA (library, lent and copied pictures), old and new, twice;
# ab3000: 3,000 frames of 1080p (the 1,000-frame pair three times over), CUDA against the floor;
# popcpu: CPU 16 threads, 1080p, the pages mapped ahead (the default since b903e88) against
#   the workers' own faults (SPEEDQA_MAP_POPULATE=0), interleaved;
# tests: test_picture cuda, the gpu and gpu+opencl suites;
# exit: the probe's process time with and without releasing (see its help);
# sweep: the CUDA CLI on the 1080p pair at batch 8/16/32, 8/16/32 threads,
#   populate modes (needs the cli step's pair);
# cli4k: the same as cli at 2160p 10-bit, 300 frames;
# fs: persistence mode (Enabled on the lent machine), the kernel, the file systems of the checkout and /dev/shm, THP settings;
# disk: CUDA, CPU 16 threads and CPU 16 threads without mapping ahead on the
#   1080p 1,000-frame pair, interleaved against its floor, once with the pair
#   on the checkout's disk file system and once in /dev/shm (tmpfs maps in
#   4 KiB pages; a disk file system's page cache in large folios);
# pol: on the disk pair (kept in .pairs), the mapping ahead against the
#   workers' own faults for CUDA and CPU at 4 and 8 threads;
# apicpu: bench/api_threads on the CPU at 1 and 16 threads (lent, copied and library
#   pictures), old and new, twice;
# short: CUDA and CPU 16 threads on a 480-frame 1080p pair on disk (the issue's clip length);
# disk4k: CUDA and CPU 16 threads, both mapping modes, 2160p 10-bit, 300 frames, pair on disk;
# cmp / cmpshm / cmp4k: old (old.tar) against new, CPU 16 threads and CUDA, interleaved against
#   the floor: 1080p 1,000 frames on disk, the same in /dev/shm, 2160p 10-bit 300 frames on disk;
# lat: bench/api_threads on the CPU, 1 to 16 threads, twice (its latency column needs
#   speedqa_receive_wait; stop 27's old-against-new figures came from a polling version);
# latab: bench/api_threads on the CPU, old (old.tar) and new interleaved, twice: 1 to 16
#   threads at 1080p 8-bit and at 2160p 10-bit (the latency column: a lone frame's planes
#   in row bands since stop 31);
# var: builds bench/api_threads of var.tar (carried: a variant tree) into /tmp/var;
# latab3: latab with the variant too (old, var, new interleaved, three rounds; a
#   compact table of the "1 in flight" column: threads:ms).
# apidram: bench/api_threads on the CPU at 1 and 16 threads with 8 distinct frames (48 MB,
#   much of it cached) and 64 (every frame from DRAM, as in a whole job), interleaved, twice;
# cudamin: the wall time of whole processes that only start and end the CUDA driver
#   (cuInit, the primary context, its release) against processes that do nothing (the
#   same python3), 5 of each: the fixed cost no CUDA job on this machine can go under.
# cudaexit: bench/cuda_exit_probe.py's three ways to end (release, exit, _exit), 3 rounds,
#   and the CUDA CLI on the 1080p 1,000-frame pair (needs the pair step), whole processes.
# latvar: latab3 without the old build, four rounds, the order of var and new swapped each round.
# readback: CUDA and CPU 16 threads on a 1,000-frame 1080p pair on disk, as written (3 rounds),
#   then dropped from the page cache and read back by speedqa (cli_ab.py --read-back, 4 rounds).
# Default: build probe open cli times. Logs tarred into OUT.
set -u
OUT=${1:-/tmp/h200}; shift; mkdir -p "$OUT/l"; L=$OUT/l
STEPS=${*:-build probe open cli times}
T0=$SECONDS
step() { local n=$1 t=$2; shift 2; local s=$SECONDS
         timeout "$t" "$@" > "$L/$n.log" 2>&1; echo "== $n: rc $? in $((SECONDS - s)) s (at $((SECONDS - T0)) s)"; }
# One build's lone-frame latency (api_threads' "1 in flight" column) at 1080p and 2160p10, one line.
lat_round() { local b=$1 r=$2 B=build-nv/bench/api_threads
              [ "$b" = new ] || B=/tmp/$b/build/bench/api_threads
              step lat3_${b}_$r 200 $B --threads 1,4,8,16 --frames 240
              step lat3k_${b}_$r 200 $B --threads 1,4,16 --frames 48 --size 3840x2160 --bpc 10
              echo "-- $b round $r: 1080p $(awk '$1 ~ /^[0-9]+$/ {printf "%s:%s ", $1, $8}' "$L/lat3_${b}_$r.log")" \
                   "2160p10 $(awk '$1 ~ /^[0-9]+$/ {printf "%s:%s ", $1, $8}' "$L/lat3k_${b}_$r.log")"; }
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64
export PATH=/usr/local/cuda/bin:$PATH
S=$PWD/build-nv/tools/speedqa
P1080=/var/tmp/sq-cli-bench-1080p8-1000
for st in $STEPS; do
    case $st in
    build) mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
           step setup 120 meson setup $( [ -f build-nv/build.ninja ] && echo --reconfigure ) build-nv --buildtype=release
           grep -iE "cuda|opencl" "$L/setup.log" | head -6
           step build 300 ninja -C build-nv
           tail -3 "$L/build.log" ;;
    probe) F=$(find build-nv -name speedqa_kernels.fatbin | head -1)
           step probe 120 sh -c "for i in 1 2 3; do python3 bench/cuda_startup_probe.py $F --register; echo; done"
           cat "$L/probe.log" ;;
    pair) step pair 200 python3 -c "import sys; sys.path.insert(0, 'bench'); import cli_throughput as c; c.bench_pair('1080p8', 1000)"
          cat $P1080/ref.y4m $P1080/dis.y4m > /dev/null; ls -la $P1080 ;;
    old) step old 300 bash -c "rm -rf /tmp/old && mkdir -p /tmp/old && tar -C /tmp/old -xf old.tar && cd /tmp/old && meson setup build --buildtype=release >/dev/null && ninja -C build tools/speedqa bench/api_threads"
         tail -2 "$L/old.log" ;;
    ab) step ab1080 300 python3 bench/cli_ab.py --frames 1000 --rounds 6 old=/tmp/old/build/tools/speedqa new=$S
        cat "$L/ab1080.log"
        step ab1080cpu 200 python3 bench/cli_ab.py --frames 1000 --rounds 3 --args "--threads 16" old=/tmp/old/build/tools/speedqa new=$S
        cat "$L/ab1080cpu.log" ;;
    ab4k) step ab4k 400 python3 bench/cli_ab.py --size 2160p10 --frames 300 --rounds 3 old=/tmp/old/build/tools/speedqa new=$S
        cat "$L/ab4k.log"
        step ab4kcpu 200 python3 bench/cli_ab.py --size 2160p10 --frames 300 --rounds 2 --args "--threads 16" new=$S
        cat "$L/ab4kcpu.log" ;;
    api) for r in 1 2; do for b in old new; do
             B=build-nv/bench/api_threads; [ $b = old ] && B=/tmp/old/build/bench/api_threads
             step api_${b}_$r 120 $B --backend cuda --threads 1,16 --frames 480
             echo "-- $b round $r"; grep -iE "library|lent|copied|fps" "$L/api_${b}_$r.log" | head -12
         done; done ;;
    ab3000) step pair3000 200 bash -c "python3 -c \"import sys; sys.path.insert(0, 'bench'); import cli_throughput as c; c.bench_pair('1080p8', 1000)\" && D=/var/tmp/sq-cli-bench-1080p8-3000 && mkdir -p \$D && for f in ref dis; do n=\$(head -1 $P1080/\$f.y4m | wc -c); { cat $P1080/\$f.y4m; tail -c +\$((n + 1)) $P1080/\$f.y4m; tail -c +\$((n + 1)) $P1080/\$f.y4m; } > \$D/\$f.y4m; done; rm -rf $P1080; ls -la \$D"
            cat "$L/pair3000.log" | tail -2
            step ab3000 300 python3 bench/cli_ab.py --frames 3000 --rounds 3 new=$S
            cat "$L/ab3000.log" ;;
    popcpu) step popcpu 300 python3 bench/cli_ab.py --frames 1000 --rounds 6 --args "--threads 16" "ahead=$S" "fault=env SPEEDQA_MAP_POPULATE=0 $S"
            cat "$L/popcpu.log" ;;
    tests) step tests 400 bash -c "meson test -C build-nv --suite gpu --suite gpu+opencl 2>&1 | grep -E '^(Ok|Fail|Skipped|Timeout):|FAIL'"
        cat "$L/tests.log" ;;
    exit) F=$(find build-nv -name speedqa_kernels.fatbin | head -1)
           step exit 120 bash -c "TIMEFORMAT='   process %R s'; for i in 1 2 3; do for v in '' --no-release --exit-live; do echo \"-- \$v\"; time python3 bench/cuda_startup_probe.py $F \$v | grep -E 'release|exit|total'; done; done"
           cat "$L/exit.log" ;;
    sweep) for v in "B=16 T=16 P=" "B=8 T=16 P=" "B=32 T=16 P=" "B=16 T=8 P=" "B=16 T=32 P=" "B=16 T=16 P=1" "B=16 T=16 P=2"; do
               eval "$v"
               step "sweep_${B}_${T}_${P}" 60 bash -c "TIMEFORMAT='%R s real %U user %S sys'; for i in 1 2 3; do time env SPEEDQA_GPU_BATCH=$B ${P:+SPEEDQA_MAP_POPULATE=$P} SPEEDQA_TIMES=1 $S -r $P1080/ref.y4m -d $P1080/dis.y4m --backend cuda --threads $T -q -o /dev/null 2>&1 | grep -E 'first frame|scored|inputs closed'; done"
               echo "-- batch $B threads $T populate ${P:-default}"; cat "$L/sweep_${B}_${T}_${P}.log" | sed 's/speedqa: time//' | paste -sd' ' | sed 's/ ms:/:/g; s/real/real\n/g'
           done ;;
    open) step open 60 sh -c 'for i in 1 2; do SPEEDQA_LOG=debug build-nv/bench/open_time cuda 1920x1080; done'
          cat "$L/open.log" ;;
    cli) step cli 400 python3 bench/cli_throughput.py "$S" --frames 1000 --threads 16 --backends cuda --gpu-threads 16
         cat "$L/cli.log" ;;
    times) step times 120 bash -c "TIMEFORMAT='%R s real %U user %S sys'; for b in cuda cuda cpu; do echo \"-- \$b\"; time SPEEDQA_TIMES=1 $S -r $P1080/ref.y4m -d $P1080/dis.y4m --backend \$b --threads 16 -q -o /dev/null; done"
           cat "$L/times.log" ;;
    cli4k) step cli4k 400 python3 bench/cli_throughput.py "$S" --size 2160p10 --frames 300 --threads 16 --backends cuda --gpu-threads 16
           cat "$L/cli4k.log" ;;
    fs) step fs 30 sh -c 'nvidia-smi -q | grep -iE "persistence|driver version|cuda version"; uname -r; df -T . /dev/shm; cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/shmem_enabled; nproc; free -g'
        cat "$L/fs.log" ;;
    disk) for d in "$PWD/.pairs" /dev/shm; do
              n=$(basename "$d")
              step "disk_$n" 420 env SPEEDQA_BENCH_DIR="$d" python3 bench/cli_ab.py --frames 1000 --rounds 5 --args "" \
                  "cuda=$S --backend cuda --threads 16" "cpu16=$S --threads 16" \
                  "cpu16fault=env SPEEDQA_MAP_POPULATE=0 $S --threads 16"
              echo "-- pair in $d"; cat "$L/disk_$n.log"
          done
          rm -rf "$PWD/.pairs" ;;
    pol) step pol 400 env SPEEDQA_BENCH_DIR="$PWD/.pairs" python3 bench/cli_ab.py --frames 1000 --rounds 6 --args "" \
             "cuda=$S --backend cuda --threads 16" "cudafault=env SPEEDQA_MAP_POPULATE=0 $S --backend cuda --threads 16" \
             "cpu4=$S --threads 4" "cpu4fault=env SPEEDQA_MAP_POPULATE=0 $S --threads 4" \
             "cpu8=$S --threads 8" "cpu8fault=env SPEEDQA_MAP_POPULATE=0 $S --threads 8"
         cat "$L/pol.log"; rm -rf "$PWD/.pairs/sq-cli-bench-1080p8-1000" ;;
    disk4k) step disk4k 400 env SPEEDQA_BENCH_DIR="$PWD/.pairs" python3 bench/cli_ab.py --size 2160p10 --frames 300 --rounds 3 --args "" \
             "cuda=$S --backend cuda --threads 16" "cudafault=env SPEEDQA_MAP_POPULATE=0 $S --backend cuda --threads 16" \
             "cpu16=$S --threads 16" "cpu16fault=env SPEEDQA_MAP_POPULATE=0 $S --threads 16"
         cat "$L/disk4k.log"; rm -rf "$PWD/.pairs" ;;
    apicpu) for r in 1 2; do for b in old new; do
                B=build-nv/bench/api_threads; [ $b = old ] && B=/tmp/old/build/bench/api_threads
                step apicpu_${b}_$r 200 $B --threads 1,16 --frames 480
                echo "-- $b round $r"; tail -2 "$L/apicpu_${b}_$r.log"
            done; done ;;
    short) step short 300 env SPEEDQA_BENCH_DIR="$PWD/.pairs" python3 bench/cli_ab.py --frames 480 --rounds 6 --args "" \
               "cuda=$S --backend cuda --threads 16" "cpu16=$S --threads 16"
           cat "$L/short.log"; rm -rf "$PWD/.pairs" ;;
    cmp|cmpshm|cmp4k)
           d="$PWD/.pairs"; a="--frames 1000 --rounds 5"
           [ $st = cmpshm ] && d=/dev/shm; [ $st = cmp4k ] && a="--size 2160p10 --frames 300 --rounds 3"
           O=/tmp/old/build/tools/speedqa
           step $st 500 env SPEEDQA_BENCH_DIR="$d" python3 bench/cli_ab.py $a --args "" \
               --ratio n16/o16 --ratio ncuda/ocuda \
               "o16=$O --threads 16" "n16=$S --threads 16" \
               "ocuda=$O --backend cuda --threads 16" "ncuda=$S --backend cuda --threads 16"
           cat "$L/$st.log"; rm -rf "$d"/sq-cli-bench-* ;;
    lat) for r in 1 2; do
             step lat_$r 300 build-nv/bench/api_threads --threads 1,2,4,8,16 --frames 480
             echo "-- round $r"; tail -6 "$L/lat_$r.log"
         done ;;
    latab) for r in 1 2; do for b in old new; do
               B=build-nv/bench/api_threads; [ $b = old ] && B=/tmp/old/build/bench/api_threads
               step latab_${b}_$r 200 $B --threads 1,2,4,8,16 --frames 240
               echo "-- $b 1080p round $r"; tail -6 "$L/latab_${b}_$r.log"
               step latab4k_${b}_$r 200 $B --threads 1,4,16 --frames 48 --size 3840x2160 --bpc 10
               echo "-- $b 2160p10 round $r"; tail -4 "$L/latab4k_${b}_$r.log"
           done; done ;;
    var) step var 300 bash -c "rm -rf /tmp/var && mkdir -p /tmp/var && tar -C /tmp/var -xf var.tar && cd /tmp/var && meson setup build --buildtype=release >/dev/null && ninja -C build bench/api_threads"
         tail -2 "$L/var.log" ;;
    latab3) for r in 1 2 3; do for b in old var new; do lat_round $b $r; done; done ;;
    apidram) for r in 1 2; do for d in 8 64; do
                 step apidram_${d}_$r 300 build-nv/bench/api_threads --threads 1,16 --frames 480 --distinct $d
                 echo "-- $d distinct, round $r"; tail -2 "$L/apidram_${d}_$r.log"
             done; done ;;
    cudamin) step cudamin 120 bash -c "TIMEFORMAT='%R'; for i in 1 2 3 4 5; do
                 echo \"nothing \$( { time python3 -c 'import ctypes; ctypes.CDLL(\"libc.so.6\")'; } 2>&1 )\"
                 echo \"cuda \$( { time python3 -c 'import ctypes; c = ctypes.CDLL(\"libcuda.so.1\"); x = ctypes.c_void_p(); assert c.cuInit(0) == 0; assert c.cuDevicePrimaryCtxRetain(ctypes.byref(x), 0) == 0; assert c.cuCtxSetCurrent(x) == 0; assert c.cuDevicePrimaryCtxRelease(0) == 0'; } 2>&1 )\"
             done"
             cat "$L/cudamin.log" ;;
    cudaexit) step cudaexit 200 bash -c "TIMEFORMAT='%R'; for r in 1 2 3; do for m in release exit _exit; do
                  echo \"\$m \$( { time python3 bench/cuda_exit_probe.py \$m; } 2>&1 )\"; done; done
                  for r in 1 2 3; do echo \"cli \$( { time $S -r $P1080/ref.y4m -d $P1080/dis.y4m --backend cuda --threads 16 -q -o /dev/null; } 2>&1 )\"; done"
              cat "$L/cudaexit.log" ;;
    latvar) for r in 1 2 3 4; do o="var new"; [ $((r % 2)) = 0 ] && o="new var"
                for b in $o; do lat_round $b $r; done; done ;;
    readback) for rb in "" "--read-back=$S --threads 16"; do
                  step readback 200 env SPEEDQA_BENCH_DIR="$PWD/.pairs" python3 bench/cli_ab.py --frames 1000 \
                      --rounds $([ -n "$rb" ] && echo 4 || echo 3) --args "" ${rb:+"$rb"} \
                      "cuda=$S --backend cuda --threads 16" "cpu16=$S --threads 16"
                  tail -4 "$L/readback.log"
              done
              rm -rf "$PWD/.pairs" ;;
    *) echo "unknown step $st" ;;
    esac
done
tar -C "$OUT" -cJf "$OUT/logs.tar.xz" l && rm -rf "$L"
