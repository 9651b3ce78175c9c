/*
 * A VMAF model's per-frame prediction on the host, bit for bit libvmaf's
 * (spec Part B): the model file's whole model_dict read (predict_load.c,
 * json-c), then normalise, chroma correction, the libsvm nu-SVR with its
 * kernel summed in support-vector file order with libm's exp, denormalise,
 * transform, clip (predict.c). Plain C doubles, the operations in the
 * spec's order and nothing fused (the build has -ffp-contract=off). Here in
 * tools/ rather than src/math: it allocates (a model's support vectors,
 * any number of them), reads a file and calls libm, none of which the
 * library's shared host/device math headers do. Pooling is the library's
 * speedqa_pool, libvmaf's accumulators already.
 */
#ifndef SQ_TOOLS_VMAF_PREDICT_H
#define SQ_TOOLS_VMAF_PREDICT_H

#include <stddef.h>

#include "model.h"

#define SQ_PREDICT_MAX_KNOTS 10

enum { SQ_SVM_LINEAR, SQ_SVM_POLY, SQ_SVM_RBF, SQ_SVM_SIGMOID };

typedef struct SqPredictor {
    int nfeat;
    int rescale;              /* norm_type linear_rescale (else none) */
    double slope[SQ_MODEL_MAX_FEATURES + 1];     /* [0]: the score's, [k+1]: feature k's */
    double intercept[SQ_MODEL_MAX_FEATURES + 1];
    int chroma;               /* chroma_correction_parameter given (non-zero) */
    double chroma_c;
    int guide, guided;        /* the adm3 and speed_chroma features it relates */
    int kernel;               /* SQ_SVM_* */
    int degree;
    double gamma, coef0, rho;
    int nsv;
    double *coef;             /* nsv */
    int *start;               /* nsv + 1: SV j's nodes are idx/val[start[j] .. start[j+1]) */
    int *idx;
    double *val;
    int transform;            /* enabled (in the file or by enable_transform) */
    int has_p[3];
    double p[3];
    int nknots;
    double knots[SQ_PREDICT_MAX_KNOTS][2];
    int out_lte_in, out_gte_in;
    int clip;                 /* score_clip given and not disable_clip */
    double clip_lo, clip_hi;
} SqPredictor;

/* The model file of m (m->path, its flags) read whole; 0, or -1 with one
 * line in err and nothing left allocated. */
int sq_predictor_load(SqPredictor *p, const SqModel *m, char *err, size_t len);
void sq_predictor_free(SqPredictor *p);

/* The score of one frame from its raw feature values (model order). */
double sq_predict(const SqPredictor *p, const double *features);

#endif
