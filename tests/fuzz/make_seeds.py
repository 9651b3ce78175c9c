#!/usr/bin/env python3
"""Writes the seed inputs of tests/fuzz/corpus/<target>/seed-*.

Seeds are committed; rerun this only to change them (it rewrites seed-*
files and leaves crash-* / regress-* files alone). The lav seeds need the
ffmpeg program; without it they are left as they are.

Input layouts are documented at the top of each fuzz_<target>.c.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, 'corpus')


def write(target, name, data, where=CORPUS):
    d = os.path.join(where, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, 'seed-' + name), 'wb') as f:
        f.write(data)


def frame_bytes(w, h, fmt, bpc):
    cw, ch = {0: (0, 0), 1: ((w + 1) // 2, (h + 1) // 2), 2: ((w + 1) // 2, h), 3: (w, h)}[fmt]
    return (w * h + 2 * cw * ch) * (2 if bpc > 8 else 1)


def pattern(n, seed=1):
    out = bytearray(n)
    s = seed
    for i in range(n):
        s = (s * 1103515245 + 12345) & 0x7fffffff
        out[i] = (s >> 16) & 0xff
    return bytes(out)


def y4m(header, frames, w, h, fmt, bpc, frame_line=b'FRAME\n'):
    data = header.encode() + b'\n'
    fb = frame_bytes(w, h, fmt, bpc)
    for i in range(frames):
        data += frame_line + pattern(fb, i + 1)
    return data


def y4m_seeds():
    s = []
    s.append(('420-8x8', y4m('YUV4MPEG2 W8 H8 F25:1 Ip A1:1 C420jpeg', 2, 8, 8, 1, 8)))
    s.append(('420-odd-5x3', y4m('YUV4MPEG2 W5 H3 F30000:1001 C420', 2, 5, 3, 1, 8)))
    s.append(('422p10-4x2', y4m('YUV4MPEG2 W4 H2 C422p10 XYSCSS=422P10', 1, 4, 2, 2, 10)))
    s.append(('444p16-3x3', y4m('YUV4MPEG2 C444p16 H3 W3', 2, 3, 3, 3, 16)))
    s.append(('mono-4x4', y4m('YUV4MPEG2 W4 H4 Cmono F0:0', 1, 4, 4, 0, 8)))
    s.append(('mono12-2x2', y4m('YUV4MPEG2 W2 H2 Cmono12', 1, 2, 2, 0, 12)))
    s.append(('frame-params', y4m('YUV4MPEG2 W2 H2 C444', 2, 2, 2, 3, 8, b'FRAME Ip XFOO=1\n')))
    s.append(('no-frames', b'YUV4MPEG2 W16 H16 C420mpeg2\n'))
    s.append(('truncated', y4m('YUV4MPEG2 W4 H4 C420', 1, 4, 4, 1, 8)[:-5]))
    s.append(('bad-marker', b'YUV4MPEG2 W2 H2 C444\nFRAMX\n' + bytes(12)))
    s.append(('no-width', b'YUV4MPEG2 H2 C444\n'))
    s.append(('huge', b'YUV4MPEG2 W16384 H16384 C444p16\nFRAME\n'))
    s.append(('too-big', b'YUV4MPEG2 W99999999999999999 H-1 C420p9\n'))
    s.append(('limit-ok', b'YUV4MPEG2 W16384 H16384 C420p16\nFRAME\n' + bytes(16)))
    s.append(('bad-rate', b'YUV4MPEG2 W2 H2 F1:0 C444\n'))
    s.append(('alpha', b'YUV4MPEG2 W2 H2 C444alpha\n'))
    s.append(('no-newline', b'YUV4MPEG2 W2 H2'))
    s.append(('long-frame-line', b'YUV4MPEG2 W1 H1 Cmono\nFRAME ' + b'X' * 5000 + b'\n\x00'))
    s.append(('not-y4m', b'YUV4MPEG3 W2 H2\n'))
    out = []
    for name, data in s:
        out.append((name, bytes([0]) + data))
    # the same files through a pipe and with other read/skip patterns
    out.append(('pipe-420-8x8', bytes([2]) + s[0][1]))
    out.append(('detect-skip-420-odd', bytes([1 | 4]) + s[1][1]))
    out.append(('alternate-444p16', bytes([2 | 8]) + s[3][1]))
    out.append(('skip1000-pipe-mono', bytes([2 | 12]) + s[4][1]))
    for name, data in out:
        write('y4m', name, data)


def yuv_seeds():
    def hdr(w, h, fmt, bpc, mode):
        return struct.pack('<iibbB', w, h, fmt, bpc, mode)
    s = [
        ('420-4x4-2f', hdr(4, 4, 1, 8, 0) + pattern(2 * frame_bytes(4, 4, 1, 8))),
        ('422p10-3x5', hdr(3, 5, 2, 10, 0) + pattern(frame_bytes(3, 5, 2, 10))),
        ('444p16-2x2-3f', hdr(2, 2, 3, 16, 4) + pattern(3 * frame_bytes(2, 2, 3, 16))),
        ('mono-7x1', hdr(7, 1, 0, 8, 2) + pattern(2 * frame_bytes(7, 1, 0, 8))),
        ('pipe-truncated', hdr(4, 2, 1, 8, 1) + pattern(frame_bytes(4, 2, 1, 8) + 3)),
        ('file-not-multiple', hdr(4, 2, 1, 8, 0) + pattern(frame_bytes(4, 2, 1, 8) + 3)),
        ('skip1000', hdr(2, 2, 1, 9, 6) + pattern(4 * frame_bytes(2, 2, 1, 9))),
        ('no-geometry', hdr(2, 2, 1, 8, 8) + pattern(6)),
        ('huge-444p16', hdr(16384, 16384, 3, 16, 0) + pattern(16)),
        ('limit-420p16', hdr(16384, 16384, 1, 16, 1) + pattern(16)),
        ('width-65536', hdr(65536, 1, 0, 8, 0) + pattern(16)),
        ('int-max', hdr(0x7fffffff, 0x7fffffff, 3, 16, 0) + pattern(16)),
        ('negative', hdr(-4, 4, 1, 8, 0) + pattern(16)),
        ('bpc7', hdr(4, 4, 1, 7, 0) + pattern(24)),
        ('bpc17', hdr(4, 4, 1, 17, 0) + pattern(48)),
        ('fmt4', hdr(4, 4, 4, 8, 0) + pattern(48)),
        ('fmt-neg', hdr(4, 4, -1, 8, 0) + pattern(48)),
        ('empty', hdr(4, 4, 1, 8, 0)),
    ]
    for name, data in s:
        write('yuv', name, data)


def option_seeds():
    s = [
        ('defaults', 'speed_chroma\nspeed_temporal'),
        ('chroma-ks', 'speed_chroma=speed_kernelscale=0.5'),
        ('temporal-all', 'speed_temporal=speed_kernelscale=1.5:speed_prescale=0.75:'
                         'speed_prescale_method=bicubic:speed_sigma_nn=0.5:speed_nn_floor=0.1:'
                         'speed_max_val=10:speed_use_ref_diff=true'),
        ('chroma-all', 'speed_chroma=speed_kernelscale=2:speed_prescale=2:speed_prescale_method=lanczos4:'
                       'speed_sigma_nn=1:speed_nn_floor=1:speed_max_val=0:speed_weight_var_mode=6'),
        ('two-chroma', 'speed_chroma\nspeed_chroma=speed_kernelscale=0.666667\n'
                       'speed_temporal=speed_prescale=0.5:speed_prescale_method=bilinear'),
        ('same-twice', 'speed_chroma\nspeed_chroma'),
        ('nine', '\n'.join(['speed_chroma=speed_weight_var_mode=%d' % i for i in range(7)] +
                           ['speed_temporal', 'speed_temporal=speed_use_ref_diff=true'])),
        ('ks-bad', 'speed_chroma=speed_kernelscale=0.9'),
        ('ks-nan', 'speed_chroma=speed_kernelscale=nan'),
        ('ks-inf', 'speed_temporal=speed_kernelscale=inf'),
        ('ks-hex', 'speed_temporal=speed_kernelscale=0x1p-1'),
        ('ks-exp', 'speed_temporal=speed_kernelscale=5e-1'),
        ('ps-tiny', 'speed_temporal=speed_prescale=0.1'),
        ('ps-upscale', 'speed_temporal=speed_prescale=4:speed_prescale_method=nearest'),
        ('ps-near-1', 'speed_chroma=speed_prescale=1.0009:speed_prescale_method=bicubic'),
        ('method-case', 'speed_temporal=speed_prescale_method=Bicubic'),
        ('method-long', 'speed_temporal=speed_prescale_method=' + 'l' * 80),
        ('unknown-opt', 'speed_chroma=speed_foo=1'),
        ('other-feature-opt', 'speed_chroma=speed_use_ref_diff=true'),
        ('no-value', 'speed_chroma=speed_sigma_nn='),
        ('no-eq', 'speed_chroma=speed_sigma_nn'),
        ('empty-opts', 'speed_chroma='),
        ('colons', 'speed_chroma=::speed_sigma_nn=1::'),
        ('eq-in-value', 'speed_chroma=speed_sigma_nn=1=2'),
        ('wvm-7', 'speed_chroma=speed_weight_var_mode=7'),
        ('wvm-float', 'speed_chroma=speed_weight_var_mode=2.9'),
        ('urd-yes', 'speed_temporal=speed_use_ref_diff=yes'),
        ('max-neg', 'speed_chroma=speed_max_val=-0'),
        ('unknown-feature', 'speed_luma'),
        ('empty', ''),
        ('long', 'speed_chroma=' + 'speed_sigma_nn=1:' * 40),
        ('long-value', 'speed_chroma=speed_sigma_nn=' + '1' * 70),
        ('spaces', 'speed_chroma = speed_sigma_nn = 1'),
        # adm: the models' sets, the refused ones, ranges, a mix with SpEED
        ('adm-default', 'adm'),
        ('adm-v1016', 'adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1:'
                      'adm_noise_weight=0.02:adm_min_val=0.5'),
        ('adm-v1016-2160', 'adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:'
                           'adm_noise_weight=0.02:adm_min_val=0.5:adm_norm_view_dist=1.5:'
                           'adm_ref_display_height=2160'),
        ('adm-csf3-ssz', 'adm=adm_csf_mode=3:adm_skip_scale0=true:adm_skip_aim=true'),
        ('adm-barten', 'adm=adm_csf_mode=1:adm_csf_scale=0.8:adm_csf_diag_scale=1.2'),
        ('adm-below-3h', 'adm=adm_norm_view_dist=2:adm_ref_display_height=1080'),
        ('adm-no-table', 'adm=adm_csf_mode=2:adm_ref_display_height=1440'),
        ('adm-ranges', 'adm=adm_enhn_gain_limit=0.5:adm_noise_weight=1500:adm_min_val=1.5'),
        ('adm-mixed', 'adm=adm_norm_view_dist=5\nspeed_chroma\nmotion\nadm=adm_enhn_gain_limit=1.5'),
        ('adm-twice', 'adm\nadm=adm_skip_aim=true'),
        ('adm-three', 'adm\nadm=adm_norm_view_dist=5\nadm=adm_csf_mode=3'),
        # cambi: the models' set, the others the math covers, ranges, the refused options
        ('cambi-default', 'cambi'),
        ('cambi-v1016', 'cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:'
                        'cambi_max_val=17'),
        ('cambi-opts', 'cambi=window_size=127:topk=0.3:cambi_topk=1:tvi_threshold=0.05:'
                       'max_log_contrast=5'),
        ('cambi-pq', 'cambi=eotf=pq:cambi_vis_lum_threshold=1\ncambi=cambi_eotf=pq'),
        ('cambi-eotf-bad', 'cambi=eotf=hlg'),
        ('cambi-ranges', 'cambi=window_size=13:max_log_contrast=6:topk=0:cambi_max_val=1001'),
        ('cambi-vlt-top', 'cambi=cambi_vis_lum_threshold=300'),
        ('cambi-refused', 'cambi=enc_width=320:enc_height=240\ncambi=full_ref=true\n'
                          'cambi=heatmaps_path=/tmp\ncambi=enc_bitdepth=8'),
        ('cambi-mixed', 'cambi\nadm\nmotion\nspeed_chroma\ncambi=max_log_contrast=0'),
        ('cambi-twice', 'cambi\ncambi'),
    ]
    for name, data in s:
        write('options', name, data)


# ---- api: mirror of fuzz_api.c parse_config ------------------------------
KS = [1.0, 0.5, 1.5, 2.0, 2 / 3, 2.4, 360 / 97, 4 / 3, 3.5 / 3, 1.25, 4.25 / 3, 5 / 3, 3.0,
      1 / 2.25, 1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.740740, 1.111111]
PS = [0.5, 0.75, 1.5, 2.0, 0.25, 0.1, 4.0, 1.0, 1.0004, 0.9995, 1.25, 3.0]


def api(w, h, fmt=1, bpc=8, threads=1, fail=None, feats=(), frames=((0, 0),), strides=(0, 0, 0),
        pat=b''):
    """feats: list of (chroma, {opt: byte}), or of (name, option mask, option bytes) for
    libvmaf's integer features; frames: (op, dis mode) bytes.
    fmt/bpc/threads are the raw config bytes' meaning (see fuzz_api.c)."""
    b = struct.pack("<HH", (w - 1) % 640, (h - 1) % 480)
    b += bytes([fmt, bpc - 8 if 8 <= bpc <= 16 else bpc, threads - 1 if 1 <= threads <= 3 else threads])
    b += bytes([0]) if fail is None else bytes([224, fail - 1])
    b += bytes([len(feats)])
    order = ['ks', 'ps', 'psm', 'wvm', 'snn', 'nnf', 'mxv']
    for f in feats:
        if len(f) == 3:
            name, mask, vals = f
            b += bytes([0xe0 | ['motion', 'adm', 'vif', 'cambi'].index(name), mask]) + bytes(vals)
            continue
        chroma, opts = f
        k = 1 if chroma else 0
        for i, o in enumerate(order):
            if o in opts:
                k |= 2 << i
        b += bytes([k])
        for o in order:
            if o in opts:
                b += bytes([opts[o]])
    b += bytes([len(frames) - 1])
    for op, dm in frames:
        b += bytes([op, dm])
    b += bytes(strides)
    return b + pat


def api_seeds():
    T = 252 - 8  # raw bpc byte that maps to "bad" values starts at 243
    s = [
        ('defaults-176x144', api(192, 176, frames=[(0, 1 | 2 << 2), (3 << 2, 1), (0, 0)])),
        ('defaults-160x160-444p10', api(160, 160, fmt=3, bpc=10, frames=[(0, 1), (2, 2), (0, 3)],
                                        pat=pattern(64))),
        ('3-threads-flush', api(200, 180, fmt=1, bpc=8, threads=3,
                                frames=[(2, 1), (1, 1), (0, 2), (2 << 2, 3), (7 << 2, 1), (1, 0)],
                                pat=pattern(200, 3))),
        ('2-threads-queue', api(240, 160, fmt=2, bpc=12, threads=2,
                                frames=[(0, 1)] * 8, strides=(3, 0x85, 6))),
        ('negative-strides', api(170, 170, fmt=3, bpc=16, frames=[(0, 2 | 6 << 2), (0, 1)],
                                 strides=(0x80, 0x81, 0x9f))),
        ('temporal-ps2', api(120, 100, fmt=0, feats=[(0, {'ps': 3, 'psm': 2, 'wvm': 1})],
                             frames=[(0, 1), (0, 1)])),
        ('temporal-upscale-lanczos', api(90, 90, fmt=0, bpc=9, feats=[(0, {'ps': 6, 'psm': 3})],
                                         frames=[(0, 1), (1, 1), (0, 2)])),
        ('chroma-ks-wvm', api(360, 240, fmt=3, feats=[(1, {'ks': 1, 'wvm': 5, 'mxv': 3}),
                                                       (1, {'ks': 12, 'snn': 200, 'nnf': 100})],
                              frames=[(0, 2), (0, 1)])),
        ('chroma-prescale-down', api(640, 480, fmt=1, bpc=10, feats=[(1, {'ps': 1, 'psm': 1})],
                                     frames=[(0, 1)])),
        ('below-minimum', api(79, 79, fmt=3)),
        ('420-chroma-too-small', api(158, 400, fmt=1)),
        ('mono-defaults', api(100, 100, fmt=0)),
        ('bad-bpc', api(192, 176, bpc=T + 1)),
        ('bad-bpc-17', api(192, 176, bpc=T + 2)),
        ('bad-fmt', api(192, 176, fmt=253)),
        ('bad-threads', api(192, 176, threads=251)),
        ('auto-threads', api(192, 176, threads=250, frames=[(0, 1)] * 3)),
        ('alloc-fail-1', api(192, 176, fail=1)),
        ('alloc-fail-9-threads', api(192, 176, threads=3, fail=9, frames=[(0, 1)] * 2)),
        ('bad-pictures', api(192, 176, frames=[(0, 0x80 | 1), (0, 0x90 | 1), (0, 0xa0 | 1), (0, 0xb0 | 1),
                                                (0, 0xc0 | 1)])),
        ('flat', api(192, 176, frames=[(1 << 2, 1 << 2 | 2), (1 << 2, 0), (4 << 2, 4 << 2 | 2)])),
        ('extremes-16bit', api(170, 170, fmt=3, bpc=16, frames=[(4 << 2, 6 << 2 | 2), (6 << 2, 4 << 2 | 2)],
                               pat=b'\xff\x00' * 40)),
        ('static-scene', api(192, 176, threads=2, frames=[(0, 1), (7 << 2, 1), (7 << 2 | 1, 0), (7 << 2, 1)])),
        ('temporal-urd', api(128, 128, fmt=0, threads=2, feats=[(0, {'wvm': 1})], frames=[(0, 2)] * 4)),
        ('tiny-1x1', api(1, 1, fmt=1)),
        # libvmaf's integer features: motion's look-ahead on a queue of one, ADM's and VIF's
        # options, CAMBI at 10 bits, samples above the depth in their luma
        ('motion-5fw-vif-1-thread', api(129, 103, fmt=2, bpc=14,
                                        feats=[('vif', 1, [140]), ('motion', 0x0f, [0, 176, 1, 1])],
                                        frames=[(0, 1), (0, 2), (0x10, 1), (0, 1), (1, 2), (0, 1)],
                                        pat=pattern(90, 5))),
        ('adm-vif-motion-3-threads', api(120, 96, fmt=1, bpc=10, threads=3,
                                         feats=[('adm', 0x13, [2, 0, 1]), ('vif', 0x02, [1]),
                                                ('motion', 0x02, [45])],
                                         frames=[(0, 1), (2 << 2, 2), (0, 1), (2, 1), (0, 2)],
                                         strides=(0x45, 3, 0x81), pat=pattern(120, 7))),
        ('cambi-10bit-pq', api(256, 200, fmt=1, bpc=10, threads=2,
                               feats=[('cambi', 0x72, [40, 20, 2, 1])],
                               frames=[(1 << 2, 1 << 2 | 2), (0, 1), (0, 2), (0, 1)],
                               pat=pattern(100, 9))),
        ('int-over-depth', api(160, 120, fmt=3, bpc=12, threads=2,
                               feats=[('adm', 0, []), ('vif', 0, []), ('motion', 0, [])],
                               frames=[(0, 1), (6 << 2, 6 << 2 | 2), (0, 1)], pat=b'\xff\xff' * 30)),
        ('cambi-over-depth', api(224, 216, fmt=1, bpc=10,
                                 feats=[('cambi', 0, [])],
                                 frames=[(0, 1), (0, 6 << 2 | 2)], pat=b'\xff\xff' * 30)),
    ]
    for name, data in s:
        write('api', name, data)


def lav_seeds():
    ff = shutil.which('ffmpeg')
    if not ff:
        print('ffmpeg not found: lav seeds left as they are', file=sys.stderr)
        return
    # (name, mode byte, ffmpeg output args, extension)
    clips = [
        ('ffv1-mkv', 1, ['-pix_fmt', 'yuv420p', '-c:v', 'ffv1'], '.mkv'),
        ('mpeg4-avi', 3, ['-pix_fmt', 'yuv420p', '-c:v', 'mpeg4', '-q:v', '20'], '.avi'),
        ('raw-p10-nut', 4, ['-pix_fmt', 'yuv422p10le', '-c:v', 'rawvideo'], '.nut'),
        ('gray-nut-pipe', 8 | 4, ['-pix_fmt', 'gray', '-c:v', 'rawvideo'], '.nut'),
        ('mjpeg-mkv', 1 | 16, ['-pix_fmt', 'yuvj444p', '-c:v', 'mjpeg', '-q:v', '31'], '.mkv'),
        ('png-rgb-mkv', 1, ['-pix_fmt', 'rgb24', '-c:v', 'png'], '.mkv'),
        ('y4m-p12', 7, ['-pix_fmt', 'yuv444p12le', '-strict', '-1'], '.y4m'),
        ('mjpeg-size-change', 0, None, ''),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, mode, args, ext in clips:
            out = os.path.join(tmp, name + ext)
            if args is None:
                # two MJPEG streams of different sizes back to back: the
                # decoder's output changes size in the middle
                data = b''
                for size in ('8x8', '6x4'):
                    part = os.path.join(tmp, 'part.mjpeg')
                    cmd = [ff, '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=%s:rate=5' % size,
                           '-frames:v', '2', '-pix_fmt', 'yuvj420p', '-c:v', 'mjpeg', '-q:v', '31',
                           '-f', 'mjpeg', part]
                    if subprocess.run(cmd).returncode != 0:
                        break
                    data += open(part, 'rb').read()
                open(out, 'wb').write(data)
            else:
                cmd = [ff, '-v', 'error', '-y', '-fflags', '+bitexact', '-f', 'lavfi', '-i', 'testsrc=size=8x6:rate=5',
                       '-frames:v', '3', '-fflags', '+bitexact', '-flags:v', '+bitexact'] + args + [out]
                if subprocess.run(cmd).returncode != 0:
                    print('ffmpeg failed for', name, file=sys.stderr)
                    continue
            data = open(out, 'rb').read()
            if len(data) > 16384:
                print('skipping', name, len(data), 'bytes', file=sys.stderr)
                continue
            write('lav', name, bytes([mode]) + data)
    write('lav', 'garbage', bytes([0]) + pattern(300))
    write('lav', 'empty', bytes([1]))


KNOWN = os.path.join(HERE, 'known')


def probe_seeds():
    """Input selection (fuzz_probe.c): raw files under names libav does not
    know (issue #10 finding 1), pipes, a Y4M signature under a raw name."""
    def hdr(mode, w, h, fmt, ten_bit=False):
        return bytes([mode, w - 1, h - 1, fmt | (4 if ten_bit else 0)])
    fb = frame_bytes
    write('probe', 'raw-bin-3f', hdr(0, 48, 32, 1) + pattern(3 * fb(48, 32, 1, 8), 1))
    write('probe', 'raw-noext-10bit', hdr(4, 40, 24, 3, True) + pattern(2 * fb(40, 24, 3, 10), 5))
    write('probe', 'raw-yuv-ext', hdr(2, 33, 17, 1) + pattern(2 * fb(33, 17, 1, 8), 9))
    write('probe', 'raw-pipe-bin', hdr(1, 64, 16, 2) + pattern(2 * fb(64, 16, 2, 8), 3))
    write('probe', 'y4m-bin', hdr(0, 16, 16, 1) + b'YUV4MPEG2 W16 H16 C420jpeg\nFRAME\n' + bytes(384))
    write('probe', 'noraw-garbage', hdr(8, 16, 16, 1) + b'\x00\x01garbage' * 40)
    write('probe', 'raw-not-multiple', hdr(0, 16, 16, 1) + bytes(1000))
    write('probe', 'raw-pipe-y4m-sig', hdr(1, 16, 16, 0) + b'YUV4MPEG2 W16 H16 Cmono\nFRAME\n' + bytes(256))


def writer_seeds():
    """Writers under write failures (fuzz_writer.c): each writer cut early,
    mid-report and never, NaN and infinities among the values."""
    nan, inf = struct.pack('<d', float('nan')), struct.pack('<d', float('inf'))
    vals = b''.join(struct.pack('<d', v) for v in (0.0, 1.5, 1000.0, 6.773138, -0.0, 1e-310)) * 8
    for wi, wname in enumerate(('xml', 'json', 'csv')):
        for cut, cname in ((0, 'at-0'), (150, 'mid'), (0xffff, 'never')):
            hdr = bytes([wi, 1 if cut == 150 else 2, 3, 7]) + struct.pack('<H', cut)
            write('writer', '%s-%s' % (wname, cname), hdr + vals)
        write('writer', '%s-nonfinite-abort' % wname,
              bytes([wi, 4, 0, 3]) + struct.pack('<H', 0xffff) + nan + inf + nan)


def clcache_seeds():
    # Layout: mode byte, then material (top of fuzz_clcache.c). Entries are
    # made by the library's writer inside the target (modes 1-3), so these
    # seeds do not repeat the file format.
    binary = pattern(4096, 7)
    s = []
    s.append(('valid', bytes([1]) + binary))
    s.append(('valid-min-1024', bytes([1]) + pattern(1024, 3)))
    s.append(('below-min-1023', bytes([1]) + pattern(1023, 3)))
    s.append(('zero-length-binary', bytes([1])))
    s.append(('cut-100-binary', bytes([1]) + binary[:100]))
    s.append(('truncated-header', bytes([2 | 4]) + struct.pack('<IB', 30, 0) + binary))
    s.append(('truncated-binary', bytes([2 | 4]) + struct.pack('<IB', 2000, 0) + binary))
    s.append(('edit-length', bytes([2]) + struct.pack('<IB', 40, 1) + binary))
    s.append(('edit-checksum', bytes([2]) + struct.pack('<IB', 50, 0x10) + binary))
    s.append(('edit-binary', bytes([2]) + struct.pack('<IB', 1000, 0) + binary))
    s.append(('edit-magic-version', bytes([2]) + struct.pack('<IB', 7, 3) + binary))
    s.append(('other-identity', bytes([3 | 4 | 0x50]) + binary))
    s.append(('garbage', bytes([0]) + pattern(300, 11)))
    s.append(('raw-header-only', bytes([0]) + b'SQCLBIN\x02' + bytes(48)))
    s.append(('empty', bytes([0])))
    for name, data in s:
        write('clcache', name, data)


def known_seeds():
    """Inputs of known, unfixed issues: not replayed by the test suite
    (they would fail under the sanitizers); see known/README.md. None open:
    the last (16-bit rows at odd addresses) is corpus/api/regress-misaligned-16bit."""


if __name__ == '__main__':
    y4m_seeds()
    yuv_seeds()
    probe_seeds()
    writer_seeds()
    option_seeds()
    api_seeds()
    clcache_seeds()
    lav_seeds()
    known_seeds()
