#ifndef MK_SPAWN_H
#define MK_SPAWN_H
// Spawning child processes without Foundation.Process, whose Linux implementation can crash
// while scanning /proc/self/fd (swift-corelibs-foundation #5472, fixed after Swift 6.3.1).
//
// Linux only. On Apple platforms ManashikiProcess uses Foundation.Process on macOS and spawns
// nothing elsewhere: posix_spawn is marked prohibited on tvOS and watchOS (spawn.h), so this
// target must declare and compile nothing there, even in a whole-package build.
#if defined(__linux__)
#include <sys/types.h>

/// Spawns `path` with `argv` and `envp` (NULL-terminated), in `cwd` (or the current directory
/// when NULL), with descriptors 0, 1 and 2 taken from `in_fd`, `out_fd` and `err_fd`; every
/// other descriptor is closed in the child and every signal disposition reset to default.
/// Returns 0 and the pid, or an errno value.
int mk_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd,
             int in_fd, int out_fd, int err_fd, pid_t *pid_out);
#endif

#endif
