/*
 * jia_msg.c - JIAJIA's message passing beside the shared memory (jia_send,
 * jia_recv, jia_reduce, jia_bcast), its rendezvous (jia_wait) and its load
 * balancing (jia_config(LOADBAL), jia_loadcheck, jia_divtask).
 *
 * A jia_send is one MSG_JIA_MSG. The receiver's comm thread queues it, in
 * arrival order, until a jia_recv takes the oldest one that matches its
 * source and tag, as JIAJIA's msgbuf does. Messages from one host arrive in
 * the order sent (am_send keeps each pair's order). The library's own
 * messages (reductions, broadcasts, load reports) travel on channels of
 * their own, so that no jia_recv of the program takes them.
 *
 * jia_wait: every host tells host 0, which answers all once all have come.
 * Nothing else travels with it, so no write becomes visible.
 *
 * The stall detector watches jia_recv and jia_wait: every message that
 * can end them is counted where sent and where handled (stall.h), so that
 * a job whose every host waits for one that will never come stops naming
 * the waits instead of hanging.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "api/compat.h"
#include "jia.h"
#include "sync/stall.h"
#include "tessera.h"
#include "transport/transport.h"
#include "transport/wait.h"
#include "util/config.h"
#include "util/log.h"

enum { CH_PROGRAM, CH_REDUCE, CH_BCAST, CH_LOAD, CHANNELS };

typedef struct jmsg {
    struct jmsg *next;
    int src, channel, tag;
    uint32_t len;
    char data[];
} jmsg;

/* The queue, filled by the comm thread, emptied by jia_recv. */
static pthread_mutex_t queue_mu = PTHREAD_MUTEX_INITIALIZER;
static jmsg *head, **tail = &head;
static uint64_t queued_bytes;
static waiter arrived;
static int receiving; /* jia_recv sleeps on `arrived` */

/* jia_wait: at host 0 (its comm thread), the round under way and who has
 * come to it; everywhere, the round this host is in (or will be in next).
 * Host 0 keeps the two apart: another host may start the next round before
 * host 0's own release of the last one has reached host 0 itself. */
static uint8_t *came;
static int coming;
static uint64_t round_open;
static _Atomic uint64_t wait_epoch;
static waiter gone;

/* Load balancing: on or off, each host's share, and when it was measured. */
static int loadbal;
static float *power;
static float measured_at;

static void queue_msg(int src, const tsr_msg_hdr *h, void *payload)
{
    if (h->arg[1] >= CHANNELS || h->arg[0] > UINT32_MAX) {
        am_reject(src, h, "a channel other than 0-3, or a tag wider than 32 bits");
        return;
    }
    pthread_mutex_lock(&queue_mu);
    jmsg *m = queued_bytes + h->len > MSG_JIA_QUEUED_MAX ? NULL : malloc(sizeof *m + h->len);
    if (!m) {
        pthread_mutex_unlock(&queue_mu);
        am_reject(src, h, "more than MSG_JIA_QUEUED_MAX bytes waiting for jia_recv");
        return;
    }
    *m = (jmsg){NULL, src, (int)h->arg[1], (int)(uint32_t)h->arg[0], h->len};
    memcpy(m->data, payload, h->len);
    queued_bytes += h->len;
    *tail = m;
    tail = &m->next;
    if (receiving) {
        receiving = 0;
        waiter_done(&arrived);
    }
    pthread_mutex_unlock(&queue_mu);
}

static void on_msg(int src, const tsr_msg_hdr *h, void *payload)
{
    queue_msg(src, h, payload);
    stall_got();
}

static void come(int src, const tsr_msg_hdr *h)
{
    if (cfg.node != 0 || h->arg[0] != round_open || came[src]) {
        am_reject(src, h, "a jia_wait not to host 0, of another round, or twice in one");
        return;
    }
    came[src] = 1;
    if (++coming < cfg.nodes)
        return;
    coming = 0;
    round_open++;
    memset(came, 0, (size_t)cfg.nodes);
    for (int n = 0; n < cfg.nodes; n++) {
        stall_sent();
        am_send(n, MSG_JIA_GO, h->arg[0], 0, 0, NULL, 0);
    }
}

static void on_wait(int src, const tsr_msg_hdr *h, void *payload)
{
    come(src, h);
    stall_got();
}

static void on_go(int src, const tsr_msg_hdr *h, void *payload)
{
    if (src != 0 || h->arg[0] != atomic_load(&wait_epoch))
        am_reject(src, h, "a jia_wait release not from host 0, or of another round");
    else {
        atomic_fetch_add(&wait_epoch, 1);
        waiter_done(&gone);
    }
    stall_got();
}

void jia_msg_init(void)
{
    came = calloc((size_t)cfg.nodes, sizeof *came);
    power = malloc((size_t)cfg.nodes * sizeof *power);
    if (!came || !power)
        log_die("out of memory (jia_init)");
    for (int n = 0; n < cfg.nodes; n++)
        power[n] = 1.0f / (float)cfg.nodes;
    am_register(MSG_JIA_MSG, on_msg);
    am_register(MSG_JIA_WAIT, on_wait);
    am_register(MSG_JIA_GO, on_go);
}

static void send_on(const char *call, int channel, const char *buf, int len, int to, int tag)
{
    if (!cfg.nodes)
        log_die("%s called before jia_init", call);
    if (to < 0 || to >= cfg.nodes)
        log_die("%s: host %d is not a host of this %d-host job", call, to, cfg.nodes);
    if (len < 0 || (unsigned)len > MSG_BYTES_MAX)
        log_die("%s: length %d is negative or more than %u MiB", call, len, MSG_BYTES_MAX >> 20);
    stall_sent();
    am_send(to, MSG_JIA_MSG, (uint32_t)tag, (uint64_t)channel, 0, buf, (size_t)len);
}

/* The oldest queued message that matches, unlinked, or NULL. */
static jmsg *take(int channel, int from, int tag)
{
    for (jmsg **p = &head; *p; p = &(*p)->next) {
        jmsg *m = *p;
        if (m->channel == channel && (from == MSG_PROC_ALL || m->src == from) &&
            (tag == MSG_TAG_ALL || m->tag == tag)) {
            *p = m->next;
            if (!*p)
                tail = p;
            queued_bytes -= m->len;
            return m;
        }
    }
    return NULL;
}

static int recv_on(const char *call, int channel, char *buf, int len, int from, int tag)
{
    if (!cfg.nodes)
        log_die("%s called before jia_init", call);
    if (len < 0 || (from != MSG_PROC_ALL && (from < 0 || from >= cfg.nodes)))
        log_die("%s: negative length %d, or host %d neither MSG_PROC_ALL nor a host of this "
                "%d-host job", call, len, from, cfg.nodes);
    for (;;) {
        pthread_mutex_lock(&queue_mu);
        jmsg *m = take(channel, from, tag);
        if (!m) {
            waiter_init(&arrived, 1);
            receiving = 1;
        }
        pthread_mutex_unlock(&queue_mu);
        if (!m) {
            stall_wait_msg(&arrived, WAIT_JIA_RECV, from == MSG_PROC_ALL ? -1 : from);
            continue;
        }
        int n = m->len < (uint32_t)len ? (int)m->len : len;
        memcpy(buf, m->data, (size_t)n);
        free(m);
        return n;
    }
}

void jia_send(char *buf, int len, int toproc, int tag)
{
    send_on("jia_send", CH_PROGRAM, buf, len, toproc, tag);
}

int jia_recv(char *buf, int len, int fromproc, int tag)
{
    return recv_on("jia_recv", CH_PROGRAM, buf, len, fromproc, tag);
}

static int op_size(int op)
{
    switch (op / 10) {
    case 0: return sizeof(int);
    case 1: return sizeof(float);
    case 2: return sizeof(double);
    }
    return 0;
}

#define COMBINE(type, d, s, count, kind)                                                   \
    for (int k = 0; k < (count); k++) {                                                    \
        type *x = (type *)(d) + k, y = ((const type *)(s))[k];                             \
        *x = (kind) == 0 ? *x + y : (kind) == 1 ? (*x > y ? *x : y) : (*x < y ? *x : y);   \
    }

static void combine(char *dest, const char *src, int count, int op)
{
    if (op / 10 == 0)
        COMBINE(int, dest, src, count, op % 10)
    else if (op / 10 == 1)
        COMBINE(float, dest, src, count, op % 10)
    else
        COMBINE(double, dest, src, count, op % 10)
}

/* A binomial tree rooted at `root`, as JIAJIA's: at step s a host whose
 * distance from the root is an odd multiple of s sends its partial result
 * up and is done; the others take one from s further away. */
void jia_reduce(char *sendbuf, char *recvbuf, int count, int op, int root)
{
    int size = op_size(op);
    if (op < 0 || !size || op % 10 > 2 || count < 0 || root < 0 || root >= hostc)
        log_die("jia_reduce(count %d, op %d, root %d): op is not one of SUM/MAX/MIN_INT/FLOAT/"
                "DOUBLE, the count is negative or the root is not a host", count, op, root);
    int len = count * size, me = (jia_pid - root + hostc) % hostc;
    char *part = malloc((size_t)len + 1);
    if (!part)
        log_die("jia_reduce: out of memory for %d bytes", len);
    memmove(recvbuf, sendbuf, (size_t)len);
    for (int step = 1; step < hostc; step <<= 1) {
        if (me % (2 * step)) {
            send_on("jia_reduce", CH_REDUCE, recvbuf, len, (me - step + root) % hostc, op);
            break;
        }
        if (me + step >= hostc)
            continue;
        int got = recv_on("jia_reduce", CH_REDUCE, part, len, (me + step + root) % hostc, op);
        if (got != len)
            log_die("jia_reduce: host %d sent %d bytes, not %d: the hosts' counts differ",
                    (me + step + root) % hostc, got, len);
        combine(recvbuf, part, count, op);
    }
    free(part);
}

void jia_bcast(char *buf, int len, int root)
{
    if (root < 0 || root >= hostc)
        log_die("jia_bcast(%d bytes, root %d): the root is not a host", len, root);
    if (jia_pid != root) {
        recv_on("jia_bcast", CH_BCAST, buf, len, root, MSG_TAG_ALL);
        return;
    }
    for (int h = 0; h < hostc; h++)
        if (h != root)
            send_on("jia_bcast", CH_BCAST, buf, len, h, 0);
}

void jia_wait(void)
{
    if (!cfg.nodes)
        log_die("jia_wait called before jia_init");
    waiter_init(&gone, 1);
    stall_sent();
    am_send(0, MSG_JIA_WAIT, atomic_load(&wait_epoch), 0, 0, NULL, 0);
    stall_wait_msg(&gone, WAIT_JIA_WAIT, -1);
}

void jia_config(int option, int value)
{
    static const char *const names[] = {"HMIG", "ADWD", "BROADCAST", "LOADBAL", "WVEC"};
    static const char *const tessera[] = {
        "Tessera has no home migration: homes stay where jia_alloc* put them",
        "Tessera's adaptive write detection is TSR_WRITE_DETECT=cache-only, for the whole job",
        "Tessera's barrier sends each host the write notices it needs, not all of them",
        "", "Tessera's diffs are made per page when needed; it has no write vectors"};
    static int reported[5];
    if (option < HMIG || option > WVEC || (value != ON && value != OFF))
        jia_error("jia_config(%d, %d): no such option (HMIG ... WVEC) or value (ON, OFF)",
                  option, value);
    if (option == LOADBAL)
        loadbal = value;
    else if (log_verbose && !reported[option]++)
        log_warn("jia_config(%s, %s): accepted; %s", names[option], value ? "ON" : "OFF",
                 tessera[option]);
}

void jia_divtask(int *begin, int *end)
{
    int first = *begin, n = *end - *begin + 1;
    if (hostc == 1)
        return;
    if (!loadbal) {
        *begin = first + n / hostc * jia_pid;
        *end = jia_pid == hostc - 1 ? first + n - 1 : *begin + n / hostc - 1;
        return;
    }
    int b = first, e = first - 1;
    for (int h = 0; h <= jia_pid; h++) {
        b = e + 1;
        e = h == hostc - 1 ? first + n - 1 : b + (int)(power[h] * (float)n);
        if (e > first + n - 1)
            e = first + n - 1;
    }
    *begin = b;
    *end = e;
}

/* Host 0 gathers each host's time since the last check, makes each host's
 * share its speed (share / time) over the sum, and sends the shares out. */
void jia_loadcheck(void)
{
    if (!loadbal)
        return;
    float now = jia_clock(), took = now - measured_at;
    measured_at = now;
    if (jia_pid != 0) {
        send_on("jia_loadcheck", CH_LOAD, (char *)&took, sizeof took, 0, 0);
        recv_on("jia_loadcheck", CH_LOAD, (char *)power, hostc * (int)sizeof *power, 0, 0);
        return;
    }
    float sum = 0;
    for (int h = 0; h < hostc; h++) {
        float t = took;
        if (h)
            recv_on("jia_loadcheck", CH_LOAD, (char *)&t, sizeof t, h, 0);
        power[h] /= t > 1e-6f ? t : 1e-6f;
        sum += power[h];
    }
    for (int h = 0; h < hostc; h++)
        power[h] /= sum;
    for (int h = 1; h < hostc; h++)
        send_on("jia_loadcheck", CH_LOAD, (char *)power, hostc * (int)sizeof *power, h, 0);
}
