// Declarations only (see include/FuzzDriver.h); libFuzzer provides the definition.
#include "FuzzDriver.h"
