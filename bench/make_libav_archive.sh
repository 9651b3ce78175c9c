#!/bin/sh
# Packs what bench/nvdec_bench.py and tests/cli/hwaccel_test.py need on a GPU
# machine without libav or ffmpeg (bench/README.md: how to unpack it there):
#   bench/make_libav_archive.sh [DEST]      (default .lav, ignored by git)
# DEST/libav.tar.xz: this machine's libavformat/libavcodec/libavutil/
#   libswscale and every library they load, glibc's own excepted (big
#   encoder/image/protocol libraries as stubs: bench/lav_closure.py), in lib/
#   (LD_LIBRARY_PATH), plus the libav headers (include/) and .pc files
#   (lib/pkgconfig/, prefix @PREFIX@, set at unpack) that a meson build needs
#   to compile speedqa's compressed input (it dlopens the sonames, never
#   links them).
# DEST/clips/test, DEST/clips/bench: the compressed clips
#   (bench/make_nvdec_clips.sh), made here with Debian's ffmpeg encoders.
# Copy DEST to the GPU machine with the source tree; it stays small (a few
# tens of MB) by stubbing the big libraries.
set -eu
DEST=${1:-.lav}
HERE=$(cd "$(dirname "$0")" && pwd)
ARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
LIBDIR=/usr/lib/$ARCH
INC=/usr/include/$ARCH
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/libav/lib/pkgconfig" "$TMP/libav/include" "$DEST"

python3 "$HERE/lav_closure.py" "$TMP/libav/lib" libavformat.so.59 libavcodec.so.59 \
    libavutil.so.57 libswscale.so.6 > "$TMP/list"
# headers and .pc files only: speedqa compiles against the headers and
# dlopens the sonames (tools/input/lav_dl.c), it never links libav
for l in avformat avcodec avutil swscale swresample; do
    sed -e "s|^prefix=.*|prefix=@PREFIX@|" -e "s|^libdir=.*|libdir=\${prefix}/lib|" \
        -e "s|^includedir=.*|includedir=\${prefix}/include|" \
        "$LIBDIR/pkgconfig/lib$l.pc" > "$TMP/libav/lib/pkgconfig/lib$l.pc"
    cp -r "$INC/lib$l" "$TMP/libav/include/"
done
strip --strip-unneeded "$TMP"/libav/lib/*.so* 2>/dev/null || true
tar -C "$TMP" -cf - libav | xz -6 -T2 > "$DEST/libav.tar.xz"
echo "$(grep -c '^copy' "$TMP/list") libraries and $(grep -c '^stub' "$TMP/list") stubs," \
     "$(du -sh "$TMP/libav/lib" | cut -f1) unpacked; $DEST/libav.tar.xz: $(du -b "$DEST/libav.tar.xz" | cut -f1) bytes"

if [ "${NO_CLIPS:-0}" != 1 ]; then
    sh "$HERE/make_nvdec_clips.sh" "$DEST/clips/test" test > /dev/null 2>&1
    sh "$HERE/make_nvdec_clips.sh" "$DEST/clips/bench" bench > /dev/null 2>&1
    echo "clips: $(du -sb "$DEST/clips" | cut -f1) bytes"
fi
echo "$DEST: $(du -sb "$DEST" | cut -f1) bytes in all"
