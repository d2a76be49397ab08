#include "mk_build_info.h"

// Weak, so that the strong definition in the object scripts/build-info-object writes replaces it at
// link time (ELF and Mach-O alike). Not `static` and read through its address, so the compiler
// cannot fold the empty string into mk_build_commit.
__attribute__((weak)) const char mk_build_commit_value[] = "";

const char *mk_build_commit(void) {
    return mk_build_commit_value;
}
