/* test_env.h - a test that needs a setting of its own sets it before
 * tsr_init; one it could not set would run under another setting and
 * prove nothing, so the test stops, naming it. */
#ifndef TEST_ENV_H
#define TEST_ENV_H

#include <stdio.h>
#include <stdlib.h>

static inline void test_setenv(const char *name, const char *value)
{
    if (setenv(name, value, 1)) {
        printf("cannot set %s=%s\n", name, value);
        exit(1);
    }
}

#endif
