#!/usr/bin/env bash
# Device steps for the pinned windows (speedqa_cuda_host_register), every step time-bounded:
#   bash bench/h200_pin.sh [FRAMES_AB]   (0: no A/B)
S=build-nv/tools/speedqa
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64 PATH=/usr/local/cuda/bin:$PATH
T0=$SECONDS
[ -f build-nv/build.ninja ] || meson setup build-nv --buildtype=release > /dev/null 2>&1
timeout 240 ninja -C build-nv > /tmp/build.log 2>&1; echo "build rc $? at $((SECONDS - T0)) s"; tail -2 /tmp/build.log
timeout 60 build-nv/tests/gpu/test_host_register cuda 2>&1 | tail -12; echo "test rc ${PIPESTATUS[0]} at $((SECONDS - T0)) s"
timeout 60 build-nv/tests/gpu/test_gpu_hostreg cuda 2>&1 | tail -6; echo "test rc ${PIPESTATUS[0]} at $((SECONDS - T0)) s"
python3 -c "import sys; sys.path.insert(0,'bench'); import cli_throughput as c; c.bench_pair('1080p8', 120)" > /dev/null
P=/var/tmp/sq-cli-bench-1080p8-120
# the same windows without speedqa (ctypes): does the driver alone stall?
timeout 40 python3 -u bench/register_probe.py $P/ref.y4m --mode async2d 2>&1 | tail -5; echo "async2d rc ${PIPESTATUS[0]}"
# pinned, and where each thread waits if it stalls (stop 29 saw it stall after the context opened)
SPEEDQA_TIMES=1 SPEEDQA_PIN=1 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /tmp/pin.csv &
pid=$!; for i in $(seq 40); do kill -0 $pid 2> /dev/null || break; sleep 0.5; done
if kill -0 $pid 2> /dev/null; then
    echo "pin: still running after 20 s; its threads:"
    for t in /proc/$pid/task/*; do echo "$(cat $t/comm) $(cat $t/wchan)"; head -4 $t/stack 2> /dev/null; done
    command -v gdb > /dev/null && timeout 20 gdb -p $pid -batch -ex "thread apply all bt 8" 2>&1 | grep -E "^#|^Thread" | head -80
    kill -9 $pid
fi
wait $pid; echo "pin rc $?"
timeout 30 env SPEEDQA_PIN=1 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda --threads 1 -q -o /tmp/pin1.csv; echo "pin --threads 1 rc $?"
timeout 30 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /tmp/nopin.csv; echo "nopin rc $?"
timeout 30 $S -r $P/ref.y4m -d $P/dis.y4m --backend cpu --threads 16 -q -o /tmp/cpu.csv; echo "cpu rc $?"
cmp /tmp/cpu.csv /tmp/pin.csv && cmp /tmp/cpu.csv /tmp/nopin.csv && echo "CSV identical: $(wc -l < /tmp/cpu.csv) lines"
echo "at $((SECONDS - T0)) s"
N=${1:-480}
[ "$N" = 0 ] && exit 0
timeout 200 python3 bench/cli_ab.py --frames $N --rounds 4 --args "--threads 16" "pin=env SPEEDQA_PIN=1 $S --backend cuda" \
    "nopin=$S --backend cuda" "cpu=$S --backend cpu" --ratio pin/nopin
P=/var/tmp/sq-cli-bench-1080p8-$N
timeout 30 env SPEEDQA_TIMES=1 SPEEDQA_PIN=1 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /dev/null
echo "at $((SECONDS - T0)) s"
