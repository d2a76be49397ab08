#ifndef C_MANASHIKI_SHIMS_H
#define C_MANASHIKI_SHIMS_H
// C helpers for what Swift's Glibc module does not expose: libcurl's easy API (dlopen),
// sync_file_range, and posix_spawn with chdir and closefrom.
#include "mk_curl.h"
#include "mk_spawn.h"
#include "mk_sys.h"
#endif
