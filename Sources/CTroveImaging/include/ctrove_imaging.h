#ifndef CTROVE_IMAGING_H
#define CTROVE_IMAGING_H
/* Whole-operation JPEG/PNG codecs over libjpeg-turbo and libpng. */
int ctrove_imaging_version(void);
#endif
