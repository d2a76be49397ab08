// Darwin declarations Glibc lacks, copied from the macOS/iOS SDK headers' C signatures, so that
// Swift imports them as it does from the Darwin module.
#include <stdint.h>
#include <stddef.h>
#define F_FULLFSYNC 51                       /* <sys/fcntl.h> */
#define CLONE_NOFOLLOW 0x0001                /* <sys/clonefile.h> */
#define CLONE_NOOWNERCOPY 0x0002
int fclonefileat(int, int, const char *, uint32_t);
#define SO_NOSIGPIPE 0x1022                  /* <sys/socket.h> */
int sysctlbyname(const char *, void *, size_t *, void *, size_t);   /* <sys/sysctl.h> */
struct statfs {                              /* <sys/mount.h>, __DARWIN_STRUCT_STATFS64 */
    uint32_t f_bsize; int32_t f_iosize; uint64_t f_blocks; uint64_t f_bfree; uint64_t f_bavail;
    uint64_t f_files; uint64_t f_ffree; int32_t f_fsid[2]; uint32_t f_owner; uint32_t f_type; uint32_t f_flags;
    uint32_t f_fssubtype; char f_fstypename[16]; char f_mntonname[1024]; char f_mntfromname[1024]; uint32_t f_flags_ext; uint32_t f_reserved[7];
};
int statfs(const char *, struct statfs *);
