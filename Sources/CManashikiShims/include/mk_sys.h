#ifndef MK_SYS_H
#define MK_SYS_H
// System calls that Swift's Glibc module does not expose.

/// Starts writeback of a file range without waiting (Linux sync_file_range); returns 0, or -1
/// where unsupported.
int mk_start_writeback(int fd, long long offset, long long length);

#endif
