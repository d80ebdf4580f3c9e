// Declarations only (include/CFuzzer.h); SwiftPM needs a source file in a C target.
#include "CFuzzer.h"
