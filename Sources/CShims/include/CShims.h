#pragma once
// Tiny C helpers for what Swift cannot call directly: functions Swift's Glibc module hides behind _GNU_SOURCE.
// No system header is included here, so that their declarations stay with Swift's Glibc module.

/// accept4(fd, NULL, NULL, flags): a connection that is close-on-exec and non-blocking from the start (no window in
/// which a child could inherit it). Returns the descriptor, or -1 with errno set.
int aviso_accept4(int fd, int flags);

/// pipe2(fds, flags): both ends close-on-exec from the start when flags has O_CLOEXEC.
int aviso_pipe2(int fds[2], int flags);
