#if defined(__linux__)
#define _GNU_SOURCE
#include <fcntl.h>
#endif
#include "mk_sys.h"

int mk_start_writeback(int fd, long long offset, long long length) {
#if defined(__linux__)
    return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd; (void)offset; (void)length;
    return -1;
#endif
}
