/*
 * config_match.h - the TSR_* variables every node of a job must set alike
 * beside the shared settings (config.h): each changes what a node does,
 * and a node that differs makes a job that behaves unlike what was asked
 * (one node's statistics missing, one node on another transport or
 * progress mode, faults injected on some links only), usually with no
 * error at all. Open MPI passes no variable to a remote rank without
 * `-x`. At tsr_init node 0 compares each node's with its own and stops the
 * job naming the variable and both nodes (api/layout.c).
 */
#ifndef TSR_CONFIG_MATCH_H
#define TSR_CONFIG_MATCH_H

#include <stdint.h>

#define CONFIG_MATCH 26 /* variables compared (config_match.c's list) */

/* One variable's value as a node has it: a hash of the whole text (unset
 * and empty alike) and its beginning, for the message. */
typedef struct config_value {
    uint64_t hash;
    char text[40]; /* NUL-terminated; "" when unset */
} config_value;

/* This node's values, in the list's order. */
void config_match(config_value value[CONFIG_MATCH]);
/* Variable i's name. */
const char *config_match_name(int i);

#endif
