/*
 * Scaling a distorted rendition of another size to the reference size,
 * defined as equal, byte for byte, to what ffmpeg 5.1 writes for
 *   ffmpeg -i in -vf scale=W:H:flags=bicubic -f rawvideo out
 * with the same pixel format in and out. It uses libswscale itself (the
 * bicubic filter and its SIMD rounding are libswscale's to define), with
 * the options ffmpeg's scale filter gives it. libswscale is dlopened by
 * sq_scaler_open, never linked: the tool runs where it is not installed,
 * as long as nothing needs scaling.
 *
 * Formats: 4:0:0, 4:2:0, 4:2:2, 4:4:4 at every bit depth libswscale has a
 * planar little/native-endian format for (8, 9, 10, 12, 14, 16; gray 8,
 * 9, 10, 12, 14, 16). Chroma planes are ceil(w / 2) (x ceil(h / 2)) wide
 * and high, as in the readers.
 *
 * Not reproduced: ffmpeg converts a frame its demuxer tags full range
 * (Y4M XCOLORRANGE=FULL, a full-range H.264 VUI) to limited range while
 * scaling; this module scales samples as they are (both ends limited, no
 * range conversion), which is what ffmpeg does for untagged or
 * limited-range input.
 */
#ifndef SQ_SCALE_H
#define SQ_SCALE_H

#include <stddef.h>
#include <stdint.h>

#include "speedqa/speedqa.h"

typedef struct SqScaler SqScaler;

/*
 * A scaler from src's geometry to dst_w x dst_h (same fmt and bpc).
 * Loads libswscale (the sonames of ffmpeg 5.1 first, then 7, 6, 4) unless
 * the sizes are equal, which is a plain copy as in ffmpeg. 0, or a
 * negative errno with one line in err and *out NULL: -ENOSYS when
 * libswscale cannot be loaded, -ENOTSUP for a format it lacks, -EINVAL
 * for bad sizes, -ENOMEM.
 */
int sq_scaler_open(SqScaler **out, const SpeedqaFormat *src, int dst_w, int dst_h, char *err,
                   size_t errlen);

/*
 * Scale one host picture of the scaler's source geometry into dst planes
 * (caller-owned, dst size, any alignment; strides in bytes, may be
 * negative, |stride| at least a row's bytes). 0 or a negative errno with
 * err filled. One thread at a time per scaler; separate scalers are
 * independent.
 */
int sq_scaler_run(SqScaler *s, const SpeedqaPicture *src, uint8_t *const dst[3],
                  const ptrdiff_t dst_stride[3], char *err, size_t errlen);

/* Frees everything and unloads libswscale; *s = NULL. NULL is fine. */
void sq_scaler_close(SqScaler **s);

#endif
