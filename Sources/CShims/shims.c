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
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void aviso_close_from(int low, int high) {
    if (low > high) return;
    if (close_range((unsigned)low, (unsigned)high, 0) == 0) return;
    for (int fd = low; fd <= high && fd < 65536; fd++) close(fd);
}

int aviso_spawn_hook(const char *path, char *const argv[], char *const envp[], const char *cwd,
                     int in_fd, int out_fd, int err_fd, unsigned long long memory_limit) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) < 0) return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        // Killed if the daemon dies before it could stop the hook.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        struct sigaction dfl;
        dfl.sa_handler = SIG_DFL;
        dfl.sa_flags = 0;
        sigemptyset(&dfl.sa_mask);
        for (int s = 1; s < NSIG; s++) sigaction(s, &dfl, NULL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        setpgid(0, 0);
        int e = 0;
        if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) e = errno;
        // Everything but 0, 1, 2 and the report pipe (close-on-exec: gone at execve).
        if (!e) {
            aviso_close_from(3, report[1] - 1);
            aviso_close_from(report[1] + 1, 0x7fffffff);
        }
        if (!e && cwd && chdir(cwd) < 0) e = errno;
        if (!e && memory_limit) {
            struct rlimit limit = { (rlim_t)memory_limit, (rlim_t)memory_limit };
            if (setrlimit(RLIMIT_AS, &limit) < 0) e = errno;
        }
        if (!e) {
            execve(path, argv, envp);
            e = errno;
        }
        ssize_t ignored = write(report[1], &e, sizeof e);
        (void)ignored;
        _exit(127);
    }
    int saved = errno;
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        errno = saved;
        return -1;
    }
    int childError = 0;
    ssize_t n;
    do { n = read(report[0], &childError, sizeof childError); } while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == (ssize_t)sizeof childError) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        errno = childError;
        return -1;
    }
    return pid;
}

int aviso_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}
