#!/bin/sh
# Compressed clips for --hwaccel cuda, made with this machine's ffmpeg (a GPU
# machine may have none: bench/make_libav_archive.sh carries them there):
# test for tests/cli/hwaccel_test.py ($SPEEDQA_NVDEC_CLIPS), bench for
# bench/nvdec_bench.py.
#   bench/make_nvdec_clips.sh DIR [test|bench]
# test (default): 12 frames each, small: h264 8-bit 1080p, HEVC Main10 and
#   AV1 10-bit (libsvtav1, no film grain) at 640x360.
# bench: h264 1080p (240 frames) and HEVC Main10 3840x2160 (96 frames).
# Each clip comes as a pair: NAME_ref.mkv (high quality) and NAME_dis.mkv.
# Synthetic content (testsrc2) keeps the files small; NVDEC's work per frame
# depends on the size and the codec far more than on the picture.
set -eu
DIR=$1
MODE=${2:-test}
mkdir -p "$DIR"
FF="ffmpeg -nostdin -hide_banner -loglevel error -y"
src() { # size frames
    echo "-f lavfi -i testsrc2=size=$1:rate=24,format=yuv420p -frames:v $2"
}
pair() { # name size frames codec-args-ref codec-args-dis
    $FF $(src "$2" "$3") $4 "$DIR/$1_ref.mkv"
    $FF $(src "$2" "$3") $5 "$DIR/$1_dis.mkv"
}
X264="-c:v libx264 -preset veryfast -pix_fmt yuv420p"
X265="-c:v libx265 -preset ultrafast -pix_fmt yuv420p10le -profile:v main10 -x265-params log-level=error"
SVT="-c:v libsvtav1 -preset 12 -pix_fmt yuv420p10le -svtav1-params film-grain=0"
if [ "$MODE" = bench ]; then
    pair h264_1080p 1920x1080 240 "$X264 -crf 27" "$X264 -crf 36"
    pair hevc10_2160p 3840x2160 96 "$X265 -crf 28" "$X265 -crf 36"
else
    pair h264_1080p 1920x1080 12 "$X264 -crf 20" "$X264 -crf 34"
    pair hevc10_360p 640x360 12 "$X265 -crf 22" "$X265 -crf 34"
    if ffmpeg -hide_banner -encoders 2>/dev/null | grep -q libsvtav1; then
        pair av1_10_360p 640x360 12 "$SVT -crf 30" "$SVT -crf 50"
    fi
fi
ls -l "$DIR"
