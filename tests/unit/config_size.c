/* config_parse_size: the sizes TSR_MEMORY and TSR_BASE accept, and the
 * strings it must refuse rather than read as some other number (a sign,
 * spaces, octal, a size that does not fit in 64 bits). */
#include <stdint.h>
#include <stdio.h>

#include "util/config.h"

static const struct {
    const char *s;
    int ok;
    size_t want;
} cases[] = {
    {"4096", 1, 4096},
    {"64K", 1, (size_t)64 << 10},
    {"512m", 1, (size_t)512 << 20},
    {"16G", 1, (size_t)16 << 30},
    {"16GiB", 1, (size_t)16 << 30},
    {"16GB", 1, (size_t)16 << 30},
    {"1T", 1, (size_t)1 << 40},
    {"0x100000000000", 1, (size_t)0x100000000000},
    {"010", 1, 10},
    {"16777215T", 1, (size_t)16777215 << 40},
    {"16777216T", 0, 0},
    {"18446744073709551615", 1, SIZE_MAX},
    {"18446744073709551616", 0, 0},
    {"-1", 0, 0},
    {"+1", 0, 0},
    {" 8", 0, 0},
    {"", 0, 0},
    {"G", 0, 0},
    {"1e9", 0, 0},
    {"16Q", 0, 0},
    {"16iB", 0, 0},
    {"16B", 0, 0},
    {"16GiBs", 0, 0},
};

int main(void)
{
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t got = 0;
        int ok = config_parse_size(cases[i].s, &got) == 0;
        if (ok != cases[i].ok || (ok && got != cases[i].want)) {
            printf("config_parse_size(\"%s\"): %s %zu, want %s %zu\n", cases[i].s,
                   ok ? "accepted" : "refused", got, cases[i].ok ? "accepted" : "refused",
                   cases[i].want);
            failed++;
        }
    }
    printf("config_size: %d failed %s\n", failed, failed ? "FAIL" : "PASS");
    return failed != 0;
}
