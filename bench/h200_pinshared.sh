#!/usr/bin/env bash
# Stop 30: does a shared mapping stop the kernel spin of pinning a private one?
#   bash bench/h200_pinshared.sh [FRAMES_AB]
# The async2d probe on the Python-written 120-frame pair, private then shared,
# each 8 s at most; then the pinned CLI (which now maps shared) at 16 and 1
# threads against the CPU's CSV; then pin/nopin/cpu at FRAMES_AB frames.
S=build-nv/tools/speedqa
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64 PATH=/usr/local/cuda/bin:$PATH
K="timeout -k 2"
T0=$SECONDS
[ -f build-nv/build.ninja ] || meson setup build-nv --buildtype=release > /dev/null 2>&1
$K 240 ninja -C build-nv > /tmp/build.log 2>&1; echo "build rc $? at $((SECONDS - T0)) s"
python3 -c "import sys; sys.path.insert(0,'bench'); import cli_throughput as c; c.bench_pair('1080p8', 120)" > /dev/null
P=/var/tmp/sq-cli-bench-1080p8-120
sync
for m in "" --shared; do
    $K 8 python3 -u bench/register_probe.py $P/ref.y4m --mode async2d $m 2>&1 | tail -2
    echo "probe ${m:-private} rc ${PIPESTATUS[0]} at $((SECONDS - T0)) s"
done
for th in 16 1; do
    $K 15 env SPEEDQA_TIMES=1 SPEEDQA_PIN=1 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda --threads $th -q -o /tmp/pin$th.csv 2>&1 | tail -2
    echo "pin --threads $th rc ${PIPESTATUS[0]}"
done
$K 30 $S -r $P/ref.y4m -d $P/dis.y4m --backend cpu --threads 16 -q -o /tmp/cpu.csv; echo "cpu rc $?"
cmp /tmp/cpu.csv /tmp/pin16.csv && cmp /tmp/cpu.csv /tmp/pin1.csv && echo "CSV identical: $(wc -l < /tmp/cpu.csv) lines"
echo "at $((SECONDS - T0)) s"
N=${1:-480}
[ "$N" = 0 ] && exit 0
$K 120 python3 -c "import sys; sys.path.insert(0,'bench'); import cli_throughput as c; c.bench_pair('1080p8', $N)" > /dev/null
sync; P=/var/tmp/sq-cli-bench-1080p8-$N; echo "pair $N at $((SECONDS - T0)) s"
$K 20 env SPEEDQA_TIMES=1 SPEEDQA_PIN=1 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /tmp/pinN.csv 2>&1 | tail -3
$K 20 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /tmp/nopinN.csv && cmp /tmp/pinN.csv /tmp/nopinN.csv && echo "pinned CSV identical at $N"
$K 120 python3 bench/cli_ab.py --frames $N --rounds 5 --args "--threads 16" "pin=timeout -k 1 15 env SPEEDQA_PIN=1 $S --backend cuda" \
    "nopin=timeout -k 1 15 $S --backend cuda" "cpu=timeout -k 1 15 $S --backend cpu" --ratio pin/nopin
echo "at $((SECONDS - T0)) s"
