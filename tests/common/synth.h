/* The synthetic golden set (spec 6.4): its inputs, made by gen_synth.c. */
#ifndef SQ_TEST_SYNTH_H
#define SQ_TEST_SYNTH_H

#include "json.h"
#include "speedqa/speedqa.h"

/* Geometry of a dataset object of synthetic_golden.json. */
SpeedqaFormat synth_format(const JVal *ds);

/* Generate every dataset's ref/dis files into dir (kept when already there). */
int synth_generate_all(const JVal *datasets, const char *dir);

/* Remove those files: a passing run leaves none behind (CI disks can be small). */
void synth_remove_all(const JVal *datasets, const char *dir);

#endif
