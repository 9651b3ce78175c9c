/*
 * A batch manifest's own models (its model column or key): each distinct
 * value loaded once, before anything is scored, by the loader --model uses
 * (sq_model_add), and handed to the pair's job (SqJob.models).
 */
#ifndef SQ_TOOLS_BATCH_MODELS_H
#define SQ_TOOLS_BATCH_MODELS_H

#include "cli_parse.h"
#include "manifest.h"
#include "model.h"

typedef struct SqBatchModels {
    SqModel *all;   /* every distinct value's models, one value after another */
    int *start;     /* pair i's models: all[start[i] .. start[i] + n[i]) */
    int *n;         /* 0: the command's --model */
} SqBatchModels;

/*
 * Loads the models of pairs[0..npairs) (none under --read-only: nothing is
 * scored). 0, or SQ_EXIT_USAGE (SQ_EXIT_INTERNAL) with one line printed
 * naming the manifest and line of the first value that does not load.
 */
int sq_batch_models_load(const CliSettings *cfg, const SqPair *pairs, int npairs,
                         SqBatchModels *bm);

/* Pair i's models for its job (NULL: the command's --model), and how many. */
const SqModel *sq_batch_models_of(const SqBatchModels *bm, int i, int *n);

void sq_batch_models_free(SqBatchModels *bm);

#endif
