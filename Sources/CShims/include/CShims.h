#pragma once
// Tiny C helpers for what Swift cannot call directly: functions Swift's Glibc module hides behind _GNU_SOURCE.
// No system header is included here, so that their declarations stay with Swift's Glibc module.

/// accept4(fd, NULL, NULL, flags): a connection that is close-on-exec and non-blocking from the start (no window in
/// which a child could inherit it). Returns the descriptor, or -1 with errno set.
int aviso_accept4(int fd, int flags);

/// pipe2(fds, flags): both ends close-on-exec from the start when flags has O_CLOEXEC.
int aviso_pipe2(int fds[2], int flags);

/// Starts a content hook the way posix_spawn starts programs (clone with CLONE_VM | CLONE_VFORK: no page tables are
/// copied, the caller waits until the child has called execve). In the child, system calls only: every signal back to
/// its default, SIGKILL when the daemon dies (PR_SET_PDEATHSIG), a process group of its own, in_fd/out_fd/err_fd as
/// 0/1/2 and every other descriptor closed, the working directory `cwd`, RLIMIT_AS of `memory_limit` bytes (0:
/// unchanged), nothing blocked, then execve. Returns the pid, or -1 with errno set, including the child's own error
/// when dup2, chdir, setrlimit or execve failed (the child reaped); `*step` then names the call that failed.
int aviso_spawn_hook(const char *path, char *const argv[], char *const envp[], const char *cwd,
                     int in_fd, int out_fd, int err_fd, unsigned long long memory_limit, const char **step);

/// pidfd_open(pid, 0): a descriptor that becomes readable when the process exits. -1 with errno set.
int aviso_pidfd_open(int pid);

/// Runs Swift concurrency's global jobs on `workers` threads of aviso's own, and its delayed jobs (Task.sleep) from a
/// timer thread, through the runtime's enqueue hooks: libdispatch's worker pool, which wakes once a second while it
/// exists, never starts. Call once, before the first task. Returns 0, or -1 when a thread could not be created (then
/// nothing is installed).
int aviso_executor_install(int workers);

/// Calls `fn(context)` on the timer thread of `aviso_executor_install` after `delay` nanoseconds of CLOCK_MONOTONIC:
/// how a task sleeps without libdispatch (Swift 6.3's Task.sleep waits with dispatch_after, which starts its pool).
void aviso_executor_after(long long delay, void (*fn)(void *), void *context);
