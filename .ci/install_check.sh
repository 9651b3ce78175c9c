#!/usr/bin/env bash
# Install check: build the shared and the static library, install into a
# staging dir (DESTDIR), then build doc/example.c against each through
# speedqa.pc and check that
#   - both examples print the same scores and exit 0,
#   - the static one does not load libspeedqa.so,
#   - the staged CLI starts without LD_LIBRARY_PATH (relative RUNPATH),
#   - both libraries define no global symbol but speedqa_*.
# Needs: meson, ninja, a C compiler, pkg-config, binutils (nm, readelf).
set -euo pipefail
cd "$(dirname "$0")/.."

B=${INSTALL_CHECK_BUILD:-build-install}
CC=${CC:-cc}
rm -rf "$B"
meson setup "$B" -Ddefault_library=both -Dprefix=/usr/local -Dtests=false >/dev/null
ninja -C "$B" >/dev/null
STAGE=$(cd "$B" && pwd)/stage
meson install -C "$B" --destdir "$STAGE" --quiet >/dev/null

fail() { echo "install_check: FAIL: $*" >&2; exit 1; }
# The file the dynamic loader picks for libspeedqa.so.N, symlinks resolved.
loaded_lib() { ldd "$1" | awk '$1 ~ /^libspeedqa\.so/ { print $3 }' | xargs -r realpath; }

pc=$(find "$STAGE" -name speedqa.pc -print -quit)
[ -n "$pc" ] || fail "speedqa.pc not installed"
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
export PKG_CONFIG_SYSROOT_DIR=$STAGE
libdir=$(pkg-config --variable=libdir speedqa)
# pkgconf prefixes variables with the sysroot, freedesktop pkg-config not.
case "$libdir" in "$STAGE"/*) ;; *) libdir=$STAGE$libdir ;; esac
[ -f "$libdir/libspeedqa.a" ] || fail "no $libdir/libspeedqa.a"
[ -e "$libdir/libspeedqa.so" ] || fail "no $libdir/libspeedqa.so"
echo "speedqa.pc: $(pkg-config --modversion speedqa): $(pkg-config --cflags --libs speedqa)" \
    "| static: $(pkg-config --static --libs speedqa)"

# Only the public API is global in either library.
extra=$(nm -g --defined-only "$libdir/libspeedqa.a" | awk 'NF == 3 && $3 !~ /^speedqa_/')
[ -z "$extra" ] || fail "libspeedqa.a defines non-API globals:"$'\n'"$extra"
extra=$(nm -D --defined-only "$libdir/libspeedqa.so" | awk 'NF == 3 && $3 !~ /^speedqa_/')
[ -z "$extra" ] || fail "libspeedqa.so exports non-API symbols:"$'\n'"$extra"
echo "symbols: $(nm -g --defined-only "$libdir/libspeedqa.a" | grep -c ' speedqa_') speedqa_* in libspeedqa.a," \
    "$(nm -D --defined-only "$libdir/libspeedqa.so" | grep -c ' speedqa_') in libspeedqa.so, nothing else"
# libspeedqa_io (the tools' I/O layer for bindings): speedqa_io_* only
if [ -e "$libdir/libspeedqa_io.so" ]; then
    extra=$(nm -D --defined-only "$libdir/libspeedqa_io.so" | awk 'NF == 3 && $3 !~ /^speedqa_io_/')
    [ -z "$extra" ] || fail "libspeedqa_io.so exports non-API symbols:"$'\n'"$extra"
    find "$STAGE" -name speedqa_io.h | grep -q . || fail "speedqa_io.h not installed"
fi

# doc/example.c against the shared library ...
# shellcheck disable=SC2046
$CC -O2 -Wall -Wextra doc/example.c $(pkg-config --cflags --libs speedqa) -o "$B/example-shared"
# ... and against the static one (libspeedqa only; libc & co. stay shared).
slibs=$(pkg-config --static --libs speedqa)
slibs=${slibs/-lspeedqa/-Wl,-Bstatic -lspeedqa -Wl,-Bdynamic}
# shellcheck disable=SC2046,SC2086
$CC -O2 -Wall -Wextra -DSPEEDQA_STATIC doc/example.c $(pkg-config --static --cflags speedqa) \
    $slibs -o "$B/example-static"

ldd "$B/example-static" | grep -q libspeedqa && fail "example-static loads libspeedqa.so"
staged_so=$(realpath "$libdir/libspeedqa.so")
[ "$(LD_LIBRARY_PATH=$libdir loaded_lib "$B/example-shared")" = "$staged_so" ] ||
    fail "example-shared does not load the staged libspeedqa.so"

LD_LIBRARY_PATH=$libdir "$B/example-shared" samples/ref.y4m samples/dis.y4m >"$B/example-shared.out" ||
    fail "example-shared exited $?"
env -u LD_LIBRARY_PATH "$B/example-static" samples/ref.y4m samples/dis.y4m >"$B/example-static.out" ||
    fail "example-static exited $?"
[ -s "$B/example-shared.out" ] || fail "example-shared printed nothing"
cmp -s "$B/example-shared.out" "$B/example-static.out" ||
    fail "shared and static examples differ: $(diff "$B/example-shared.out" "$B/example-static.out" | head)"
echo "examples: shared and static print the same $(wc -l <"$B/example-shared.out") lines"

# The staged CLI finds the staged library through its relative RUNPATH.
cli=$STAGE/usr/local/bin/speedqa
runpath=$(readelf -d "$cli" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p;s/.*(RPATH).*\[\(.*\)\]/\1/p')
# shellcheck disable=SC2016
case "$runpath" in '$ORIGIN/'*) ;; *) fail "speedqa RUNPATH is '$runpath', not \$ORIGIN-relative" ;; esac
[ "$(unset LD_LIBRARY_PATH; loaded_lib "$cli")" = "$staged_so" ] ||
    fail "staged speedqa does not resolve the staged libspeedqa.so"
env -u LD_LIBRARY_PATH "$cli" --version || fail "staged speedqa --version exited $?"
# the man page is installed, written from this very CLI's --help
man1=$STAGE/usr/local/share/man/man1/speedqa.1
[ -s "$man1" ] && grep -q 'threads' "$man1" || fail "speedqa(1) is not installed"
# VMAF models: Netflix's files and license installed; with libvmaf built in,
# the staged CLI finds them next to its bin/ (version=NAME)
models=$STAGE/usr/local/share/speedqa/model
[ -f "$models/LICENSE" ] && [ -f "$models/vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json" ] ||
    fail "the model files are not installed in $models"
if env -u LD_LIBRARY_PATH "$cli" -r samples/ref.y4m -d samples/dis.y4m --model version=vmaf_v0.6.1 \
        --json -q >"$B/model.json" 2>"$B/model.err"; then
    grep -q '"vmaf"' "$B/model.json" || fail "staged speedqa --model: no vmaf score"
    echo "models: the staged CLI scores version=vmaf_v0.6.1 from $models"
else
    grep -q "no libvmaf" "$B/model.err" || fail "staged speedqa --model: $(cat "$B/model.err")"
    echo "models: installed; this build has no libvmaf"
fi
echo "install check: OK"
