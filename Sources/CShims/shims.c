#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>
#include "CShims.h"

int aviso_accept4(int fd, int flags) {
    return accept4(fd, NULL, NULL, flags);
}

#include <fcntl.h>
#include <unistd.h>

int aviso_pipe2(int fds[2], int flags) {
    return pipe2(fds, flags);
}

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void aviso_close_from(int low, int high) {
    if (low > high) return;
    if (close_range((unsigned)low, (unsigned)high, 0) == 0) return;
    for (int fd = low; fd <= high && fd < 65536; fd++) close(fd);
}

struct aviso_hook_spawn {
    const char *path;
    char *const *argv;
    char *const *envp;
    const char *cwd;
    int in_fd, out_fd, err_fd;
    unsigned long long memory_limit;
    pid_t parent;
    /// Written by the child (it shares the parent's memory until execve): why it could not start, and in which call.
    int error;
    const char *step;
};

/// The child, on a stack of its own in the parent's memory (CLONE_VM | CLONE_VFORK): only system calls here.
static int aviso_hook_child(void *raw) {
    struct aviso_hook_spawn *a = raw;
    // The parent's handlers must not run here: back to the defaults (the table is the child's own copy).
    struct sigaction dfl;
    dfl.sa_handler = SIG_DFL;
    dfl.sa_flags = 0;
    sigemptyset(&dfl.sa_mask);
    for (int s = 1; s < NSIG; s++) sigaction(s, &dfl, NULL);
    // Killed if the daemon dies before it could stop the hook.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != a->parent) _exit(127);
    setpgid(0, 0);
    const char *step = NULL;
    if (dup2(a->in_fd, 0) < 0 || dup2(a->out_fd, 1) < 0 || dup2(a->err_fd, 2) < 0) step = "dup2";
    if (!step) aviso_close_from(3, 0x7fffffff);
    if (!step && a->cwd && chdir(a->cwd) < 0) step = "chdir";
    if (!step && a->memory_limit) {
        struct rlimit limit = { (rlim_t)a->memory_limit, (rlim_t)a->memory_limit };
        if (setrlimit(RLIMIT_AS, &limit) < 0) step = "setrlimit";
    }
    if (!step) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(a->path, a->argv, a->envp);
        step = "execve";
    }
    a->step = step;
    a->error = errno;
    _exit(127);
}

int aviso_spawn_hook(const char *path, char *const argv[], char *const envp[], const char *cwd,
                     int in_fd, int out_fd, int err_fd, unsigned long long memory_limit, const char **step) {
    struct aviso_hook_spawn a = { path, argv, envp, cwd, in_fd, out_fd, err_fd, memory_limit, getpid(), 0, NULL };
    const size_t stack_size = 64 * 1024;
    *step = "mmap";
    void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -1;
    *step = "clone";
    // No signal handler may run in the child while it shares this memory: all blocked around the clone, as
    // posix_spawn does.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    // The parent waits (CLONE_VFORK) until the child has called execve or exited: no page tables are copied.
    pid_t pid = clone(aviso_hook_child, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    munmap(stack, stack_size);
    if (pid < 0) {
        errno = saved;
        return -1;
    }
    if (a.error) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        *step = a.step;
        errno = a.error;
        return -1;
    }
    return pid;
}

int aviso_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}
