/*
 * iface.c - which local IPv4 address a node (or tsrun) listens on.
 *
 * On one host everything is loopback. Across hosts each process must listen
 * on an address its peers can reach, and only the host itself knows which of
 * its interfaces that is. The rule, in order: TSR_ADDR (an address of this
 * host), TSR_IFACE (the first IPv4 address of that interface), the local end
 * of a connection that already reaches the job (the kernel's route choice),
 * and failing all of these the first interface that is up and not loopback.
 */
#include "boot/iface.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The first IPv4 address of interface `name`, or of the first interface up
 * and not loopback when name is NULL. Returns 0 and sets *out, or -1. */
static int scan_interfaces(const char *name, uint32_t *out)
{
    struct ifaddrs *all, *a;
    int found = -1;
    if (getifaddrs(&all))
        return -1;
    for (a = all; a && found; a = a->ifa_next) {
        if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET)
            continue;
        if (name ? strcmp(a->ifa_name, name)
                 : !(a->ifa_flags & IFF_UP) || (a->ifa_flags & IFF_LOOPBACK))
            continue;
        *out = ((struct sockaddr_in *)a->ifa_addr)->sin_addr.s_addr;
        found = 0;
    }
    freeifaddrs(all);
    return found;
}

int iface_listen_addr(const char *addr, const char *iface, int reach_fd, uint32_t *out,
                      char *why, size_t len)
{
    struct in_addr in;
    if (addr && *addr) {
        if (inet_pton(AF_INET, addr, &in) != 1) {
            snprintf(why, len, "TSR_ADDR='%s' is not an IPv4 address", addr);
            return -1;
        }
        *out = in.s_addr;
        return 0;
    }
    if (iface && *iface) {
        if (!scan_interfaces(iface, out))
            return 0;
        snprintf(why, len, "TSR_IFACE='%s' is not an interface of this host with an IPv4 address",
                 iface);
        return -1;
    }
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    if (reach_fd >= 0 && !getsockname(reach_fd, (struct sockaddr *)&sa, &sl) &&
        sa.sin_family == AF_INET) {
        *out = sa.sin_addr.s_addr;
        return 0;
    }
    if (scan_interfaces(NULL, out))
        *out = htonl(INADDR_LOOPBACK);
    return 0;
}

int iface_toward(uint32_t dest, uint32_t *out)
{
    /* Connecting a datagram socket sends nothing: it only asks the kernel
     * for the route, whose source address getsockname then gives. */
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = dest};
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;
    if (fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        rc = iface_listen_addr(NULL, NULL, fd, out, NULL, 0);
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

const char *iface_host(void)
{
    static char name[256];
    if (!name[0] && gethostname(name, sizeof name - 1))
        snprintf(name, sizeof name, "(unknown host)");
    return name;
}
