#ifndef MK_SYS_H
#define MK_SYS_H
// System calls that Swift's Glibc module does not expose.

/// Starts writeback of a file range without waiting (Linux sync_file_range); returns 0, or -1
/// where unsupported.
int mk_start_writeback(int fd, long long offset, long long length);

/// Copies up to `length` bytes from `in_fd` at `*in_offset` to `out_fd` at `*out_offset` inside
/// the kernel (Linux copy_file_range: a reflink or server-side copy where the file system can);
/// advances both offsets. Returns the bytes copied, 0 at end of file, or -1 with errno (ENOSYS
/// where unsupported).
long long mk_copy_file_range(int in_fd, long long *in_offset, int out_fd, long long *out_offset, long long length);

#endif
