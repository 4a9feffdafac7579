/*
 * iface.h - the local address a node or tsrun listens on, so that peers on
 * other hosts can reach it (TSR_ADDR, TSR_IFACE; docs/CONFIG.md).
 */
#ifndef TSR_IFACE_H
#define TSR_IFACE_H

#include <stddef.h>
#include <stdint.h>

/* The IPv4 address (network order) to listen on: `addr` (TSR_ADDR) if set,
 * else the first IPv4 address of interface `iface` (TSR_IFACE) if set, else
 * the local end of the connected socket reach_fd (-1: none), else the first
 * interface up and not loopback, else loopback. Returns 0, or -1 with why
 * naming the variable whose value is wrong. */
int iface_listen_addr(const char *addr, const char *iface, int reach_fd, uint32_t *out,
                      char *why, size_t len);
/* The source address this host uses to reach `dest` (network order); no
 * packet is sent. Returns 0, or -1 when there is no route. */
int iface_toward(uint32_t dest, uint32_t *out);
/* This host's name, for messages that must say where something failed. */
const char *iface_host(void);

#endif
