/* Integer ADM (math/vmaf_adm.h) against libvmaf's "adm" extractor. */
#include <stdio.h>

#include "vmafint.h"

const ViUse vi_adm_uses[] = { { "adm", { { NULL, NULL } } } };
const int vi_adm_n_uses = 1;

int vi_adm_check(VmafContext *ctx, const ViSeq *s)
{
    (void)ctx;
    (void)s;
    printf("FAIL adm not yet written\n");
    return 1;
}
