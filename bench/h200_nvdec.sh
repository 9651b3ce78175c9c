#!/bin/bash
# --hwaccel cuda on the H200 host, in one device call from the repo root,
# with .lav carried (made here by bench/make_libav_archive.sh: that host has
# no ffmpeg, no libav):
#   bash bench/h200_nvdec.sh "$OUT" [tests]   (tests: stop after step 2)
# 1. unpacks .lav/libav.tar.xz, builds speedqa against it (build-nv)
# 2. runs tests/cli/hwaccel_test.py gpu + nogpu (clips from .lav/clips/test)
# 3. bench/nvdec_bench.py on .lav/clips/bench (4 streams at once: NVDEC
#    decode-only, NVDEC decode + CUDA score, software decode + CUDA or CPU)
# Logs go to OUT/nvdec_logs.tar.xz; the summary table ends the output.
set -u
OUT=${1:-${OUT:-/tmp/nvdec_out}}
mkdir -p "$OUT"
LOG=$OUT/logs
mkdir -p "$LOG"
START=$(date +%s)
step() { echo "== $* ($(( $(date +%s) - START )) s)"; }
finish() {
    tar -C "$OUT" -cJf "$OUT/nvdec_logs.tar.xz" logs 2>/dev/null && rm -rf "$LOG"
    step "done: $1"
    exit "$1"
}
[ -f .lav/libav.tar.xz ] || { echo "no .lav/libav.tar.xz: run bench/make_libav_archive.sh and carry .lav"; exit 2; }

step unpack
LAV=/tmp/speedqa-lav
rm -rf "$LAV" && mkdir -p "$LAV" && tar -C "$LAV" -xJf .lav/libav.tar.xz || finish 2
sed -i "s|@PREFIX@|$LAV/libav|" "$LAV"/libav/lib/pkgconfig/*.pc
export PKG_CONFIG_PATH=$LAV/libav/lib/pkgconfig
export PATH=/usr/local/cuda/bin:$PATH
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader ||
  echo "no nvidia-smi"; } > "$LOG/gpu.txt" 2>&1
cat "$LOG/gpu.txt"

step build
# a second call on a warm machine finds build-nv: reconfigure it (its summary is the check below)
if ! meson setup $( [ -f build-nv/build.ninja ] && echo --reconfigure ) build-nv \
        --buildtype=release > "$LOG/setup.log" 2>&1; then
    tail -20 "$LOG/setup.log"; finish 3
fi
grep -i "compressed input" "$LOG/setup.log"
grep -qi "compressed input (libav).*yes" "$LOG/setup.log" || { echo "built without libav"; finish 3; }
ninja -C build-nv tools/speedqa > "$LOG/build.log" 2>&1 || { tail -30 "$LOG/build.log"; finish 3; }
S=$PWD/build-nv/tools/speedqa
# the archive's libraries for speedqa's runs only (the build tools keep the host's)
export LD_LIBRARY_PATH=$LAV/libav/lib:/usr/local/nvidia/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
$S --list-devices 2>&1 | tee "$LOG/devices.txt" | grep -A2 "^cuda"

step "tests (hwaccel_test.py gpu, nogpu)"
export SPEEDQA_NVDEC_CLIPS=$PWD/.lav/clips/test
TR=0
for t in gpu nogpu; do
    timeout 240 python3 tests/cli/hwaccel_test.py $t "$S" "$PWD" "/tmp/speedqa-hw-$t" > "$LOG/test_$t.log" 2>&1
    rc=$?
    echo "test $t: exit $rc ($(grep -c '^ok' "$LOG/test_$t.log") ok, $(grep -c '^FAIL' "$LOG/test_$t.log") FAIL)"
    grep "^FAIL\|^skip" "$LOG/test_$t.log" | head -10
    [ $rc -eq 0 ] || TR=1
done

[ "${2:-}" = tests ] && finish $TR

step "bench (4 streams at once)"
timeout 420 python3 bench/nvdec_bench.py "$S" "$PWD/.lav/clips/bench" "$LOG/bench" 4 > "$LOG/bench.log" 2>&1
BR=$?
grep -v "^$" "$LOG/bench.log" | tail -40
cp "$LOG/bench/nvdec_bench.json" "$OUT/" 2>/dev/null
rm -rf "$LOG/bench/work/"*.json
[ $TR -eq 0 ] && [ $BR -eq 0 ] && finish 0
finish 1
