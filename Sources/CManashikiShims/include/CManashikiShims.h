#ifndef C_MANASHIKI_SHIMS_H
#define C_MANASHIKI_SHIMS_H
// C helpers for what Swift's Glibc module does not expose: libcurl's easy API (dlopen) and
// sync_file_range. (Spawning processes lives in CManashikiSpawn, for ManashikiProcess.)
#include "mk_curl.h"
#include "mk_sys.h"
#endif
