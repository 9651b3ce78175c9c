/*
 * Host-side inputs of the math core that need exp/sin/floor: the Gaussian
 * taps and the prescale axis tables. They are computed once per plan with
 * the host libm (which is what Netflix used) and handed to every backend,
 * so no device ever evaluates a transcendental for them.
 */
#ifndef SQ_FEATURE_TAPS_H
#define SQ_FEATURE_TAPS_H

#include <stdint.h>

#include "math/prescale.h"
#include "math/prelude.h"

/* Window size for pyramid scale `scale` (1: anti-alias, 4: local mean). */
int sq_window_size(int scale, double kernelscale);

/* Normalised Gaussian taps, spec 4.3. taps <= SQ_MAX_TAPS. */
void sq_gaussian_taps(float *g, int taps, float sigma);

/* sigma of the anti-alias (scale 1) and local-mean (scale 4) windows. */
float sq_sigma_antialias(int taps);
float sq_sigma_local_mean(int taps);

/*
 * One axis of the prescale: for each of n_out outputs, SQ_PS_TAPS source
 * indices and weights (layout in math/prescale.h). n_in is the source length.
 */
void sq_prescale_axis(int method, int n_in, int n_out, int32_t *idx, float *w);

#endif
