#!/usr/bin/env bash
# Reliability checks (issue #6), called by .ci/run after the normal suites:
#  1. libFuzzer targets (clang, ASan + UBSan + LSan), each for FUZZ_SECONDS,
#     starting from the committed corpus; then the committed corpus replayed
#     through the plain replay programs (suite fuzz-replay);
#  2. a TSan build running the golden suite (synthetic-threads included),
#     the threads stress test, the library pictures test, the lent pictures and
#     range tests (lone frames in row bands) and the registered ranges tests
#     (test_pin, test_gpu_hostreg);
#  3. the long run: 1000 3840x2160 frames, resident memory flat after frame 100.
# Exits nonzero on any crash, sanitizer report, failed check or test.
# Needs clang and libclang-rt-14-dev (installed by .ci/run). The targets
# run FUZZ_JOBS (default: the cores) at a time.
#
# A crash leaves its input in build-fuzz/fuzz-artifacts/; reproduce it with
#   build-fuzz/tests/fuzz/replay_<target> build-fuzz/fuzz-artifacts/<file>
# and commit it as tests/fuzz/corpus/<target>/regress-<what> once fixed.
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_JOBS=${FUZZ_JOBS:-$(nproc)}
LONGRUN_FRAMES=${LONGRUN_FRAMES:-1000}
status=0
failed() {
    echo "FAIL: $*"
    status=1
}

if ! command -v clang >/dev/null; then
    echo "reliability: clang not found (apt-get install clang libclang-rt-14-dev)"
    exit 1
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=report_objects=1

echo "== fuzz build (clang, libFuzzer, ASan + UBSan)"
rm -rf build-fuzz
# fuzzer-no-link: coverage feedback from the library and readers too, not
# only from the target files (which get -fsanitize=fuzzer in tests/fuzz).
if ! CC=clang CXX=clang++ meson setup build-fuzz -Dbuildtype=debugoptimized \
        -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args=-fsanitize=fuzzer-no-link -Dc_link_args=-fsanitize=fuzzer-no-link >build-fuzz.log 2>&1; then
    tail -40 build-fuzz.log
    echo "FAIL: fuzz build setup"
    exit 1
fi
# only what is run from this build: fuzzers, replay programs, the long run
fuzz_build_targets=$(ninja -C build-fuzz -t targets all 2>/dev/null |
    awk -F: '$1 ~ /^tests\/fuzz\/(fuzz|replay)_[a-z0-9]+$|^tests\/stress\/longrun$/ {print $1}')
if [ -z "$fuzz_build_targets" ] || ! ninja -C build-fuzz $fuzz_build_targets >>build-fuzz.log 2>&1; then
    tail -40 build-fuzz.log
    echo "FAIL: fuzz build"
    exit 1
fi
if ! ls build-fuzz/tests/fuzz/fuzz_* >/dev/null 2>&1; then
    echo "FAIL: no libFuzzer targets were built (meson summary: libFuzzer targets)"
    exit 1
fi

echo "== fuzzing, ${FUZZ_SECONDS}s per target, ${FUZZ_JOBS} at a time"
mkdir -p build-fuzz/fuzz-artifacts
# one target: its log and exit status in build-fuzz (the targets run side by
# side, one a core: each still gets FUZZ_SECONDS of its own)
fuzz_one() {
    local exe=$1 t=${1##*/fuzz_}
    local work=build-fuzz/fuzz-work/$t
    mkdir -p "$work"
    # new units go to $work; the committed corpus is only read
    "$exe" -max_total_time="$FUZZ_SECONDS" -timeout=60 -rss_limit_mb=4096 -max_len=8192 \
        -print_final_stats=1 -artifact_prefix="build-fuzz/fuzz-artifacts/$t-" \
        "$work" "tests/fuzz/corpus/$t" >"build-fuzz/fuzz-$t.log" 2>&1
    echo $? >"build-fuzz/fuzz-$t.rc"
}
targets=()
for exe in build-fuzz/tests/fuzz/fuzz_*; do
    [ -f "$exe" ] && [ -x "$exe" ] && targets+=("$exe")
done
for exe in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$FUZZ_JOBS" ]; do
        wait -n
    done
    fuzz_one "$exe" &
done
wait
summary=""
for exe in "${targets[@]}"; do
    t=${exe##*/fuzz_}
    seeds=tests/fuzz/corpus/$t
    log=build-fuzz/fuzz-$t.log
    rc=$(cat "build-fuzz/fuzz-$t.rc" 2>/dev/null || echo 1)
    execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
    rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")
    line=$(printf '%-8s %9s execs %6s/s  corpus %4d seeds + %5d new units  rc %d' "$t" "${execs:-?}" \
        "${rate:-?}" "$(ls "$seeds" | wc -l)" "$(ls "build-fuzz/fuzz-work/$t" | wc -l)" "$rc")
    echo "$line"
    summary+="$line"$'\n'
    if [ "$rc" -ne 0 ]; then
        grep -E -A30 "ERROR: |fuzz check failed|runtime error|SUMMARY" "$log" | head -60
        ls -1 build-fuzz/fuzz-artifacts/"$t"-* 2>/dev/null
        failed "fuzz_$t"
    fi
done

echo "== corpus replay under ASan + UBSan"
meson test -C build-fuzz --no-rebuild --suite fuzz-replay --print-errorlogs --timeout-multiplier 4 ||
    failed "fuzz-replay"
echo "== long run leak check under ASan (30 frames)"
build-fuzz/tests/stress/longrun 30 2 >build-fuzz/longrun-asan.log 2>&1 || {
    tail -40 build-fuzz/longrun-asan.log
    failed "longrun under ASan"
}

# a build whose checks all passed goes (CI disks can be small); a failing one stays to look at
[ "$status" -ne 0 ] || rm -rf build-fuzz

echo "== TSan build: golden suite (synthetic-threads) and the threads stress"
rm -rf build-tsan
if CC=clang CXX=clang++ meson setup build-tsan -Dbuildtype=debugoptimized -Db_sanitize=thread \
        -Db_lundef=false >build-tsan.log 2>&1 && ninja -C build-tsan >>build-tsan.log 2>&1; then
    export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
    meson test -C build-tsan --suite golden --suite stress --print-errorlogs --timeout-multiplier 4 ||
        failed "TSan tests"
    # more streams and 3 contexts at once
    build-tsan/tests/stress/stress_threads 24 3 7 || failed "TSan stress_threads 24 3"
    # library pictures: released on worker threads while the caller allocates
    build-tsan/tests/gpu/test_picture cpu >build-tsan/picture.log 2>&1 ||
        { tail -30 build-tsan/picture.log; failed "TSan test_picture"; }
    # lone frames split in row bands over idle threads (one by one), lent pictures
    # given back on workers, and each band's range check reaching the frame
    build-tsan/tests/gpu/test_lend cpu >build-tsan/lend.log 2>&1 ||
        { tail -30 build-tsan/lend.log; failed "TSan test_lend"; }
    build-tsan/tests/gpu/test_range null >build-tsan/range.log 2>&1 ||
        { tail -30 build-tsan/range.log; failed "TSan test_range"; }
    # a lone frame the waiting caller scores itself (sq_pool_collect_run), helped
    build-tsan/tests/gpu/test_range cpu >build-tsan/range-cpu.log 2>&1 ||
        { tail -30 build-tsan/range-cpu.log; failed "TSan test_range cpu"; }
    # registered ranges: windows pinned by the CLI's thread while frames are read
    # and given back on other threads; ranges registered while frames are sent
    build-tsan/tests/input/test_pin build-tsan >build-tsan/pin.log 2>&1 ||
        { tail -30 build-tsan/pin.log; failed "TSan test_pin"; }
    build-tsan/tests/gpu/test_gpu_hostreg null-dma >build-tsan/hostreg.log 2>&1 ||
        { tail -30 build-tsan/hostreg.log; failed "TSan test_gpu_hostreg"; }
    unset TSAN_OPTIONS
else
    tail -40 build-tsan.log
    failed "TSan build"
fi

[ "$status" -ne 0 ] || rm -rf build-tsan

echo "== long run: $LONGRUN_FRAMES frames of 3840x2160, resident memory"
if { test -d build || meson setup build >/dev/null; } && ninja -C build >/dev/null; then
    build/tests/stress/longrun "$LONGRUN_FRAMES" || failed "longrun"
else
    failed "plain build for the long run"
fi

echo "== differential fuzz: the Python binding against the CLI, ${FUZZ_SECONDS}s from a fresh seed"
if python3_sys=$(command -v /usr/bin/python3 || command -v python3) &&
        "$python3_sys" -c "import numpy" 2>/dev/null && [ -x build/tools/speedqa ]; then
    line=$(PYTHONPATH=$PWD/python SPEEDQA_LIB=$PWD/build/src/libspeedqa.so.0.2 \
        SPEEDQA_IO_LIB=$PWD/build/tools/libspeedqa_io.so.0 "$python3_sys" tests/python/fuzz_diff.py \
        --cli build/tools/speedqa --seconds "$FUZZ_SECONDS" 2>&1 | tail -4)
    rc=$?
    echo "$line"
    summary+="python  $(echo "$line" | tail -1)"$'\n'
    [ "$rc" -eq 0 ] || failed "fuzz_diff (Python against the CLI)"
else
    echo "skipped: no numpy for the system python3, or no plain build"
fi

echo "== reliability summary"
printf '%s' "$summary"
[ "$status" -eq 0 ] && echo "reliability: all passed" || echo "reliability: FAILED"
exit "$status"
