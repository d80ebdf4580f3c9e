#ifndef LIVELINE_CZLIB_SHIM_H
#define LIVELINE_CZLIB_SHIM_H
#include <zlib.h>
#endif
