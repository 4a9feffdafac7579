/*
 * check.h - what the in-process unit tests (tests/unit/) share: CHECK
 * counts and prints a failed condition without stopping the test, so one
 * run shows every failure; CHECK_DIES runs a call that must end the process
 * in a forked child and checks its exit status and message; check_done
 * prints the verdict and gives main its status.
 */
#ifndef TSR_TEST_CHECK_H
#define TSR_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int check_failures;

#define CHECK(cond, ...)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            check_failures++;                                                               \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                     \
            printf(__VA_ARGS__);                                                            \
            printf("\n");                                                                   \
        }                                                                                   \
    } while (0)

/* Runs fn(arg) in a child with stderr captured: it must exit with `status`
 * and its stderr must contain `message`. `what` names the case. */
static inline void check_dies_(const char *what, void (*fn)(const void *), const void *arg, int status,
                        const char *message, const char *file, int line)
{
    char err[2048] = "";
    int pipefd[2];
    fflush(stdout);
    if (pipe(pipefd)) {
        perror("pipe");
        exit(2);
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        dup2(pipefd[1], STDERR_FILENO);
        close(pipefd[0]);
        fn(arg);
        _exit(0);
    }
    close(pipefd[1]);
    size_t len = 0;
    ssize_t n;
    while ((n = read(pipefd[0], err + len, sizeof err - 1 - len)) > 0)
        len += (size_t)n;
    err[len] = 0;
    close(pipefd[0]);
    int ws;
    waitpid(pid, &ws, 0);
    int got = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    if (got != status || !strstr(err, message)) {
        check_failures++;
        printf("FAIL %s:%d: %s: exit %d (want %d), stderr '%s' (want '%s')\n", file, line,
               what, got, status, err, message);
    }
}
#define CHECK_DIES(what, fn, arg, status, message) \
    check_dies_(what, fn, arg, status, message, __FILE__, __LINE__)

static inline int check_done(const char *test)
{
    printf("%s: %s\n", test, check_failures ? "FAIL" : "PASS");
    return check_failures != 0;
}

#endif
