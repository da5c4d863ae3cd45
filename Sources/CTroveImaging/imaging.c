#include "ctrove_imaging.h"
int ctrove_imaging_version(void) { return 1; }
