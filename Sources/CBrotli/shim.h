#ifndef LIVELINE_CBROTLI_SHIM_H
#define LIVELINE_CBROTLI_SHIM_H
#include <brotli/encode.h>
#include <brotli/decode.h>
#endif
