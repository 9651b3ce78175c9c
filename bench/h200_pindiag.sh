#!/usr/bin/env bash
# Why pinned windows stall on the H200 (stop 30): is it pages not yet written back?
#   bash bench/h200_pindiag.sh [FRAMES_AB]
# The 120-frame pair of h200_pin.sh is probed once written back (sync), then a fresh
# copy of it (dirty pages) is probed while the registering thread's CPU time is
# sampled, then the same copy after sync. Then the pinned CLI, and an A/B at
# FRAMES_AB frames with the pair synced, every command under a timeout.
S=build-nv/tools/speedqa
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64 PATH=/usr/local/cuda/bin:$PATH
T0=$SECONDS
[ -f build-nv/build.ninja ] || meson setup build-nv --buildtype=release > /dev/null 2>&1
timeout 240 ninja -C build-nv > /tmp/build.log 2>&1; echo "build rc $? at $((SECONDS - T0)) s"
grep -E 'Dirty|Writeback:' /proc/meminfo | tr -s ' ' | paste -sd' '
awk '/^Node/{z=$4} /present/{print "zone", z, "present", $2}' /proc/zoneinfo | paste -sd' '
cat /proc/cmdline; cat /proc/sys/vm/dirty_expire_centisecs /proc/sys/vm/dirty_writeback_centisecs | paste -sd' '
python3 -c "import sys; sys.path.insert(0,'bench'); import cli_throughput as c; c.bench_pair('1080p8', 120)" > /dev/null
P=/var/tmp/sq-cli-bench-1080p8-120
probe() {  # probe FILE LABEL: the async2d probe, 12 s at most, the stuck thread sampled
    timeout 12 python3 -u bench/register_probe.py "$1" --mode async2d > /tmp/probe.log 2>&1 &
    local pid=$! i
    sleep 3
    for i in 1 2; do
        for t in /proc/$(pgrep -n -f "register_probe.py $1")/task/*; do
            [ -r $t/stat ] && awk -v l="$2 t=$i" -v w="$(cat $t/wchan)" '$14 + $15 > 20 {print "  " l, "tid", $1, "state", $3, "utime", $14, "stime", $15, w}' $t/stat
        done
        sleep 2
    done
    wait $pid; echo "$2: rc $?"; tail -3 /tmp/probe.log
}
sync; grep -E 'Dirty' /proc/meminfo | tr -s ' '
probe $P/ref.y4m "synced pair"
cp $P/ref.y4m /var/tmp/fresh.y4m; grep -E 'Dirty' /proc/meminfo | tr -s ' '
probe /var/tmp/fresh.y4m "fresh copy (dirty)"
sync; grep -E 'Dirty' /proc/meminfo | tr -s ' '
probe /var/tmp/fresh.y4m "fresh copy after sync"
echo "at $((SECONDS - T0)) s"
for th in 16 1; do
    timeout 15 env SPEEDQA_TIMES=1 SPEEDQA_PIN=1 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda --threads $th -q -o /tmp/pin$th.csv 2>&1 | tail -3
    echo "pin --threads $th rc ${PIPESTATUS[0]}"
done
timeout 30 $S -r $P/ref.y4m -d $P/dis.y4m --backend cpu --threads 16 -q -o /tmp/cpu.csv; echo "cpu rc $?"
cmp /tmp/cpu.csv /tmp/pin16.csv && cmp /tmp/cpu.csv /tmp/pin1.csv && echo "CSV identical: $(wc -l < /tmp/cpu.csv) lines"
N=${1:-1000}
[ "$N" = 0 ] && exit 0
timeout 150 python3 -c "import sys; sys.path.insert(0,'bench'); import cli_throughput as c; c.bench_pair('1080p8', $N)" > /dev/null
sync; echo "pair $N synced at $((SECONDS - T0)) s"
P=/var/tmp/sq-cli-bench-1080p8-$N
timeout 20 env SPEEDQA_TIMES=1 SPEEDQA_PIN=1 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /tmp/pinN.csv 2>&1 | tail -4
timeout 20 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /tmp/nopinN.csv && cmp /tmp/pinN.csv /tmp/nopinN.csv && echo "pinned CSV identical at $N"
timeout 150 python3 bench/cli_ab.py --frames $N --rounds 5 --args "--threads 16" "pin=timeout 20 env SPEEDQA_PIN=1 $S --backend cuda" \
    "nopin=timeout 20 $S --backend cuda" "cpu=timeout 20 $S --backend cpu" --ratio pin/nopin
echo "at $((SECONDS - T0)) s"
