#!/usr/bin/env bash
# Stop 30's last device call: the private-mapping refusal on CUDA, the pinned CLI
# (shared mapping) against the CPU's CSV, then the GPU suites; each step bounded.
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64 PATH=/usr/local/cuda/bin:$PATH
K="timeout -k 2"; T0=$SECONDS; S=build-nv/tools/speedqa
mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
[ -f build-nv/build.ninja ] || meson setup build-nv --buildtype=release > /dev/null 2>&1
$K 240 ninja -C build-nv > /tmp/build.log 2>&1; echo "build rc $? at $((SECONDS - T0)) s"; tail -1 /tmp/build.log
$K 60 build-nv/tests/gpu/test_host_register cuda 2>&1 | tail -6; echo "rc ${PIPESTATUS[0]}"
$K 60 build-nv/tests/gpu/test_gpu_hostreg cuda 2>&1 | tail -7; echo "rc ${PIPESTATUS[0]}"
python3 -c "import sys; sys.path.insert(0,'bench'); import cli_throughput as c; c.bench_pair('1080p8', 120)" > /dev/null
P=/var/tmp/sq-cli-bench-1080p8-120; sync
$K 15 env SPEEDQA_PIN=1 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /tmp/pin.csv; echo "pin rc $?"
$K 15 $S -r $P/ref.y4m -d $P/dis.y4m --backend cpu --threads 16 -q -o /tmp/cpu.csv; echo "cpu rc $?"
cmp /tmp/cpu.csv /tmp/pin.csv && echo "pinned CSV identical: $(wc -l < /tmp/cpu.csv) lines"
echo "at $((SECONDS - T0)) s"
$K 200 meson test -C build-nv --suite gpu --suite gpu+opencl > /tmp/suites.log 2>&1; echo "suites rc $?"
grep -E '^(Ok|Fail|Skipped|Timeout):' /tmp/suites.log; grep -E ' FAIL |TIMEOUT' /tmp/suites.log | head
echo "at $((SECONDS - T0)) s"
