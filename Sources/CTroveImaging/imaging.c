#include "ctrove_imaging.h"

#include <stdlib.h>

void ctrove_free(void *pointer) { free(pointer); }

void ctrove_metadata_free(ctrove_metadata *metadata) {
    if (metadata == NULL) return;
    free(metadata->exif);
    free(metadata->xmp);
    free(metadata->icc);
    free(metadata->exif_text);
    metadata->exif = metadata->xmp = metadata->icc = metadata->exif_text = NULL;
    metadata->exif_length = metadata->xmp_length = metadata->icc_length = 0;
    metadata->exif_text_length = 0;
}
