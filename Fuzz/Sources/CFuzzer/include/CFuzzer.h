#ifndef CFUZZER_H
#define CFUZZER_H
#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer): parses libFuzzer's flags from
// argv and calls `callback` for each input. SwiftPM gives an executable its own `main` on Linux,
// so `liveline-fuzz` calls the driver from there instead of using libFuzzer's `main`.
// https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
