/*
 * One libvmaf session per distorted stream (bridge.c): libvmaf computes
 * the model features speedqa does not (model.h says which), speedqa's
 * scores are imported under the names the models look up, libvmaf
 * predicts and pools. Callers: tools/job.c (single runs, ladders, each
 * pair of a batch); built only with libvmaf (SQ_HAVE_VMAF).
 */
#ifndef SQ_TOOLS_VMAF_BRIDGE_H
#define SQ_TOOLS_VMAF_BRIDGE_H

#include <stddef.h>

#include <libvmaf/libvmaf.h>

#include "engine.h"
#include "model.h"
#include "speedqa/speedqa.h"

typedef struct SqVmaf SqVmaf;

/* Opens libvmaf for one stream: each model's libvmaf features registered
 * with the model's options. 0, or -1 with one line in err. */
int sq_vmaf_open(SqVmaf **v, const SqVmafSetup *s, char *err, size_t len);

/* A frame pair at index (0, 1, ... within the stream), copied. */
int sq_vmaf_send(SqVmaf *v, const SpeedqaPicture *ref, const SpeedqaPicture *dis,
                 unsigned index, char *err, size_t len);

/* One of speedqa's scores of frame index, under speedqa's output name; feature: the
 * speedqa feature giving it (speedqa_score_feature). */
int sq_vmaf_import(SqVmaf *v, const char *name, int feature, double value, unsigned index, char *err,
                   size_t len);

/* After the last frame (nframes sent): libvmaf's features finished, each
 * frame predicted, the report assembled for the frames listed. */
int sq_vmaf_finish(SqVmaf *v, unsigned nframes, const unsigned long long *frames,
                   size_t nreport, SqVmafReport *rep, char *err, size_t len);

void sq_vmaf_close(SqVmaf **v);

/* Whether this libvmaf has the extractor name; the list of those it has
 * among the names libvmaf registers, comma separated, into buf. */
int sq_vmaf_has_extractor(const char *name);
void sq_vmaf_extractors(char *buf, size_t len);

/* report.c: libvmaf's collector read back, speedqa's names placed (engine.h). */
int sq_vmaf_report_of(VmafContext *ctx, const SqVmafOrder *order, unsigned nframes,
                      const unsigned long long *frames, size_t nreport, SqVmafReport *rep,
                      char *err, size_t len);

/* feed.c: vmaf_read_pictures on a thread of its own (a queue of a few frame
 * pairs; put takes the pictures and blocks while the queue is full). put and
 * stop return the first error of vmaf_read_pictures so far (its frame in
 * *bad_index), 0 if none; stop drains the queue and ends the thread. */
typedef struct SqVmafFeed SqVmafFeed;
int sq_vmaf_feed_start(SqVmafFeed **f, VmafContext *ctx);
int sq_vmaf_feed_put(SqVmafFeed *f, VmafPicture *ref, VmafPicture *dis, unsigned index,
                     unsigned *bad_index);
int sq_vmaf_feed_stop(SqVmafFeed **f, unsigned *bad_index);

/* picture.c: src into dst, allocated by vmaf_picture_alloc for its format. */
void sq_vmaf_copy_picture(VmafPicture *dst, const SpeedqaPicture *src);

#endif
