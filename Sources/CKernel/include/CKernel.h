#pragma once
// The kernel interfaces Swift's Glibc module leaves out, from their real headers: epoll, timerfd, eventfd,
// signalfd and inotify, with their structs and flags as the C library defines them, fstatfs and malloc_trim. Functions
// glibc declares only under _GNU_SOURCE get a small wrapper in kernel.c.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/vfs.h>
#include <sys/types.h>
#include <pthread.h>
#include <malloc.h>

/// gettid(): the calling thread's kernel id.
pid_t aviso_gettid(void);

/// tgkill(tgid, tid, sig): a signal to one thread.
int aviso_tgkill(pid_t tgid, pid_t tid, int sig);

/// pthread_setname_np(thread, name): at most 15 bytes are kept.
int aviso_set_thread_name(pthread_t thread, const char *name);
