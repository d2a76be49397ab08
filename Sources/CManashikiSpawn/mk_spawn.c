// Linux only (see mk_spawn.h): on Apple platforms this file compiles to nothing.
#if defined(__linux__)
#define _GNU_SOURCE
#include "mk_spawn.h"
#include <errno.h>
#include <signal.h>
#include <spawn.h>

int mk_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd,
             int in_fd, int out_fd, int err_fd, pid_t *pid_out) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attributes);
    if (rc != 0) { posix_spawn_file_actions_destroy(&actions); return rc; }

    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, in_fd, 0);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    if (rc == 0 && cwd) rc = posix_spawn_file_actions_addchdir_np(&actions, cwd);
#else
    if (rc == 0 && cwd) rc = ENOSYS;
#endif
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &all);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attributes, &none);
    if (rc == 0) rc = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    if (rc == 0) rc = posix_spawn(pid_out, path, &actions, &attributes, argv, envp);

    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}
#endif
