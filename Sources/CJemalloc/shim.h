// jemalloc (Debian libjemalloc-dev) as the process allocator of the `liveline-bench` executable.
// Linking the library is what replaces malloc/free process-wide; only the control interface is
// declared here, so this header does not redeclare malloc beside glibc's <stdlib.h>.
#ifndef LIVELINE_CJEMALLOC_SHIM_H
#define LIVELINE_CJEMALLOC_SHIM_H
#include <stddef.h>

int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

#endif
