/* ramp's exec helper: the steps between a slot's launcher and a sandboxed program, in C.

   The launcher (launcher.py) starts this file's static binary with posix_spawn, which
   shares the launcher's memory until the exec (vfork) instead of copying its page tables
   (fork): a fork of a ~10 MB Python process and its Python set-up steps cost ~1-3 ms a run,
   this ~0.3 ms. It has already put the run's stdin, stdout and stderr on 0-2, started a new
   session and reset SIGPIPE and SIGXFSZ to their defaults; here, in this order, as the
   Python path (launcher._child) does:

       chdir CWD; setrlimit for each triple; setgroups, setresgid, setresuid to UID (not
       when UID is -1); exec PROGRAM with ARGS (a PATH search as os.execvpe does: no
       shell for a file that is not an executable)

   usage: ramp-exec REPORT_FD CWD UID N [RESOURCE SOFT HARD]*N PROGRAM [ARG...]
   (-1 as SOFT or HARD: no limit). The environment is the program's own. REPORT_FD is made
   close-on-exec first, so the launcher reads end-of-file when the program's exec
   succeeded; when a step fails, "STEP\0ERRNO" is written there and the helper exits 127.
   Static: no dynamic loader runs as root with the program's environment. */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

extern char **environ;

static int report_fd = -1;

static void fail(const char *step, int err) {
    char buf[PATH_MAX + 64];
    int n = snprintf(buf, sizeof buf, "%s%c%d", step, 0, err);
    if (report_fd >= 0 && n > 0) {
        ssize_t written = write(report_fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf);
        (void)written;
    }
    _exit(127);
}

static long long number(const char *text, const char *what) {
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno || end == text || *end) fail(what, EINVAL);
    return value;
}

/* os.execvpe's search: a name with a slash is run as it is; otherwise each PATH entry in
   turn, remembering the first error other than "not there". */
static void exec_program(char *const argv[]) {
    const char *name = argv[0];
    char step[PATH_MAX + 8];
    snprintf(step, sizeof step, "exec %s", name);
    if (strchr(name, '/')) {
        execve(name, argv, environ);
        fail(step, errno);
    }
    const char *path = getenv("PATH");
    if (!path) path = "/bin:/usr/bin";
    int saved = 0;
    int last = ENOENT;
    char candidate[PATH_MAX];
    for (const char *p = path;; p++) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        int n = len ? snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, p, name)
                    : snprintf(candidate, sizeof candidate, "%s", name);
        if (n > 0 && (size_t)n < sizeof candidate) {
            execve(candidate, argv, environ);
            last = errno;
            if (last != ENOENT && last != ENOTDIR && !saved) saved = last;
        }
        if (!colon) break;
        p = colon;
    }
    fail(step, saved ? saved : last);
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fputs("usage: ramp-exec REPORT_FD CWD UID N [RESOURCE SOFT HARD]*N PROGRAM [ARG...]\n",
              stderr);
        return 126;
    }
    report_fd = (int)number(argv[1], "report fd");
    if (fcntl(report_fd, F_SETFD, FD_CLOEXEC) != 0) fail("report fd", errno);
    char step[PATH_MAX + 16];
    snprintf(step, sizeof step, "chdir %s", argv[2]);
    if (chdir(argv[2]) != 0) fail(step, errno);
    long long uid = number(argv[3], "uid");
    long long count = number(argv[4], "rlimit count");
    int i = 5;
    if (count < 0 || count > (argc - i - 1) / 3) fail("rlimit count", EINVAL);
    for (long long k = 0; k < count; k++, i += 3) {
        int which = (int)number(argv[i], "rlimit resource");
        long long soft = number(argv[i + 1], "rlimit soft"), hard = number(argv[i + 2], "rlimit hard");
        struct rlimit limit = {soft < 0 ? RLIM_INFINITY : (rlim_t)soft,
                               hard < 0 ? RLIM_INFINITY : (rlim_t)hard};
        snprintf(step, sizeof step, "setrlimit %d", which);
        if (setrlimit(which, &limit) != 0) fail(step, errno);
    }
    if (uid >= 0) {
        snprintf(step, sizeof step, "switch to uid %lld", uid);
        if (setgroups(0, NULL) != 0) fail(step, errno);
        if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0) fail(step, errno);
        if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) fail(step, errno);
    }
    exec_program(argv + i);
    return 127;
}
