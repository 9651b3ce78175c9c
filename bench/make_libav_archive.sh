#!/bin/sh
# Packs this machine's libav runtime (libavformat/libavcodec/libavutil/libswscale
# and every shared library they load, glibc's own excepted) with the libav
# headers and .pc files, so that a machine without ffmpeg (the H200 bench
# host) can build speedqa's compressed-input support and run it:
#   bench/make_libav_archive.sh [DEST]   (default .lav: ignored by git)
# DEST/libav.tar.xz unpacks to lib/ (LD_LIBRARY_PATH), include/ and
# lib/pkgconfig/ (PKG_CONFIG_PATH; prefix rewritten at unpack time by
# bench/h200_nvdec.sh). DEST/clips/ (bench/make_nvdec_clips.sh) travels too.
set -eu
DEST=${1:-.lav}
ARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
LIBDIR=/usr/lib/$ARCH
INC=/usr/include/$ARCH
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/libav/lib/pkgconfig" "$TMP/libav/include" "$DEST"

ROOTS="libavformat.so.59 libavcodec.so.59 libavutil.so.57 libswscale.so.6"
# glibc's own libraries exist on every target, and must be the target's
GLIBC='^(libc|libm|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl|libcrypt|ld-linux-x86-64|ld-linux-aarch64|libmvec|libBrokenLocale|libnss_[a-z]*)\.so'
for r in $ROOTS; do
    echo "$LIBDIR/$r"
    ldd "$LIBDIR/$r" | awk '/=> \// { print $3 }'
done | sort -u > "$TMP/closure"
n=0
while read -r f; do
    b=$(basename "$f")
    if echo "$b" | grep -Eq "$GLIBC"; then continue; fi
    cp -L "$f" "$TMP/libav/lib/$b"
    n=$((n + 1))
done < "$TMP/closure"
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
echo "$n libraries, $(du -sh "$TMP/libav/lib" | cut -f1) unpacked; $DEST/libav.tar.xz: $(du -b "$DEST/libav.tar.xz" | cut -f1) bytes"
