S=build-nv/tools/speedqa
bash bench/h200_cli.sh $OUT build
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64
timeout 200 meson test -C build-nv host-register-cuda lend-cuda host-register 2>&1 | tail -6
grep -E "^ok|^FAIL|went up|frame .* side" build-nv/meson-logs/testlog.txt | head -30
python3 -c "import sys; sys.path.insert(0,'bench'); import cli_throughput as c; print(c.bench_pair('1080p8', 480))"
P=/var/tmp/sq-cli-bench-1080p8-480
$S -r $P/ref.y4m -d $P/dis.y4m --backend cpu --threads 16 -q -o /tmp/cpu.csv; echo cpu $?
$S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /tmp/pin.csv; echo pin $?
SPEEDQA_PIN=0 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /tmp/nopin.csv; echo nopin $?
cmp /tmp/cpu.csv /tmp/pin.csv && cmp /tmp/cpu.csv /tmp/nopin.csv && echo CSV-IDENTICAL; wc -l /tmp/cpu.csv
SPEEDQA_TIMES=1 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /dev/null
timeout 150 python3 bench/cli_ab.py --frames 480 --rounds 5 --args "--threads 16" "pin=$S --backend cuda" "nopin=env SPEEDQA_PIN=0 $S --backend cuda" "cpu=$S --backend cpu" --ratio pin/nopin
timeout 200 python3 bench/cli_ab.py --frames 1000 --rounds 4 --args "--threads 16" "pin=$S --backend cuda" "nopin=env SPEEDQA_PIN=0 $S --backend cuda" "cpu=$S --backend cpu" --ratio pin/nopin
P=/var/tmp/sq-cli-bench-1080p8-1000; SPEEDQA_TIMES=1 $S -r $P/ref.y4m -d $P/dis.y4m --backend cuda -q -o /dev/null
