/*
 * boot.h - the node side of start-up: register with tsrun, learn every
 * node's endpoint, connect the full TCP mesh with the job secret.
 */
#ifndef TSR_BOOT_H
#define TSR_BOOT_H

#include <stddef.h>
#include <stdint.h>

typedef struct tsr_boot {
    int *peer_fd;  /* one per node; -1 for this node */
    int listen_fd; /* kept open: later connections are refused and logged */
    int launcher_fd; /* connection to tsrun; -1 when run alone */
} tsr_boot;

extern tsr_boot boot;

/* Parses TSR_BOOT's "a.b.c.d:port": returns the IPv4 address and sets
 * *port, both in network order; exits with a message naming TSR_BOOT when
 * s is not of that form. */
uint32_t boot_parse_addr(const char *s, uint16_t *port);
/* Fills `boot`; exits with a message naming the cause on failure. */
void boot_start(void);
/* After start-up every connection is a stranger's: the comm thread accepts
 * it (returns the fd, or -1), waits in its poll set until the stranger has
 * spoken or STRANGER_WAIT_S passed, then refuses it, logging why (wrong
 * secret, no secret, mesh complete). Neither call blocks. */
#define STRANGER_WAIT_S 2.0
int boot_stranger_accept(void);
void boot_stranger_refuse(int fd);
/* Reads what tsrun says once the job runs: BOOT_ABORT names a failed node
 * (returned, with tsrun's reason in why) or none (-1: a time-out); -1 with
 * why "lost contact with tsrun" means tsrun itself is gone. */
int boot_launcher_news(char *why, size_t len);
/* Tells tsrun this node finished tsr_finalize. */
void boot_fin(void);

#endif
