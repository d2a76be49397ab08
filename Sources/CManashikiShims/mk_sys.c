#if defined(__linux__)
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>
#endif
#include <errno.h>
#include "mk_sys.h"

int mk_start_writeback(int fd, long long offset, long long length) {
#if defined(__linux__)
    return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd; (void)offset; (void)length;
    return -1;
#endif
}

long long mk_copy_file_range(int in_fd, long long *in_offset, int out_fd, long long *out_offset, long long length) {
#if defined(__linux__)
    loff_t in = (loff_t)*in_offset, out = (loff_t)*out_offset;
    ssize_t n = copy_file_range(in_fd, &in, out_fd, &out, (size_t)length, 0);
    if (n > 0) { *in_offset = (long long)in; *out_offset = (long long)out; }
    return (long long)n;
#else
    (void)in_fd; (void)in_offset; (void)out_fd; (void)out_offset; (void)length;
    errno = ENOSYS;
    return -1;
#endif
}
