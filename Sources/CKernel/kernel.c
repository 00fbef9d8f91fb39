#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include "CKernel.h"

pid_t aviso_gettid(void) { return gettid(); }

int aviso_tgkill(pid_t tgid, pid_t tid, int sig) { return tgkill(tgid, tid, sig); }

int aviso_set_thread_name(pthread_t thread, const char *name) { return pthread_setname_np(thread, name); }
