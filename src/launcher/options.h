/*
 * options.h - tsrun's options (options.c).
 */
#ifndef TSR_LAUNCHER_OPTIONS_H
#define TSR_LAUNCHER_OPTIONS_H

typedef struct tsrun_options {
    int n;                /* nodes */
    int prefix;           /* -p: [node] before every output line */
    int merge_only;       /* --merge-trace: merge the parts of a job run without tsrun */
    double timeout;       /* -t, 0 for none */
    double startup_limit; /* TSR_CONNECT_TIMEOUT, as the nodes read it */
    char **argv;          /* the program and its arguments */
} tsrun_options;

/* Reads the command line and tsrun's own variables into *opt; exits with a
 * usage message or a refusal when they cannot be served. */
void options_parse(int argc, char **argv, tsrun_options *opt);
/* tsrun will not run what it was asked to: one line saying why, exit 2. */
void refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void refuse_if(int failed, const char *why);
/* Exits 127, naming the program, if exec would not find it. */
void check_program(const char *prog);

#endif
