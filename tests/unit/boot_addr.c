/* Endpoint parsing (boot/boot.c): TSR_BOOT's "a.b.c.d:port" gives the
 * address and port in network order; anything else ends the process with
 * status 1 and a message naming TSR_BOOT. */
#include <arpa/inet.h>

#include "boot/boot.h"
#include "check.h"

static void parse(const void *s)
{
    uint16_t port;
    boot_parse_addr(s, &port);
}

int main(void)
{
    uint16_t port = 0;
    uint32_t addr = boot_parse_addr("127.0.0.1:4000", &port);
    CHECK(addr == htonl(0x7f000001) && port == htons(4000), "127.0.0.1:4000 gave %#x:%u",
          ntohl(addr), ntohs(port));
    addr = boot_parse_addr("10.1.2.3:65535", &port);
    CHECK(addr == htonl(0x0a010203) && port == htons(65535), "10.1.2.3:65535 gave %#x:%u",
          ntohl(addr), ntohs(port));
    static const char *const not_host_port[] = {"127.0.0.1", "",
        "a-host-name-much-longer-than-sixty-four-characters-is-not-an-ipv4-address:1"};
    for (size_t i = 0; i < sizeof not_host_port / sizeof *not_host_port; i++)
        CHECK_DIES(not_host_port[i], parse, not_host_port[i], 1, "is not host:port");
    static const char *const not_ipv4[] = {"localhost:4000", "127.0.0.1:0", "127.0.0.1:65536",
                                           "127.0.0.1:", "127.0.0.1:80x", "::1:4000"};
    for (size_t i = 0; i < sizeof not_ipv4 / sizeof *not_ipv4; i++)
        CHECK_DIES(not_ipv4[i], parse, not_ipv4[i], 1, "is not an IPv4 host:port");
    return check_done("boot_addr");
}
