#ifndef TROVE_FUZZ_DRIVER_H
#define TROVE_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs with a main of their own (SwiftPM gives every
/// executable one): parses libFuzzer's options from argv and fuzzes `callback`.
int LLVMFuzzerRunDriver(int *argc, char ***argv,
                        int (*callback)(const uint8_t *data, size_t size));

#endif
