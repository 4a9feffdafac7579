/*
 * msg.h - every protocol message Tessera sends, in one table.
 *
 * Each message is a 32-byte header (payload length, type, source node, three
 * 64-bit arguments) followed by the payload. "waiter" arguments are the
 * requester's own address of the object that waits for the reply; only the
 * requester interprets them.
 */
#ifndef TSR_MSG_H
#define TSR_MSG_H

/*  name                arg0                   arg1            arg2            payload                     meaning */
#define TSR_MESSAGES(X) \
    X(MSG_PAGE_REQ,       "page",                "waiter",       "count,stride", "-",                        "fetch the master copies of pages page + i*stride, i < count, from their home") \
    X(MSG_PAGE_REP,       "page",                "waiter",       "count,stride", "u32 versions, pages",      "those pages, and the home version each one is") \
    X(MSG_DIFF,           "count",               "waiter",       "-",            "(page,len,diff)*",         "a releaser's diffs for pages homed at the receiver") \
    X(MSG_DIFF_ACK,       "count",               "waiter",       "-",            "(page,version)*",          "diffs applied; the versions they produced") \
    X(MSG_LOCK_ACQ,       "lock",                "-",            "-",            "-",                        "ask the lock's manager for the lock") \
    X(MSG_LOCK_GRANT,     "lock",                "notice bytes", "-",            "notices, bound data",      "the lock, with the write notices and the data bound to it") \
    X(MSG_LOCK_REL,       "lock",                "notice bytes", "epoch",        "notices, bound data",      "give the lock back, with the releaser's new notices and the bound data (counted by the barrier ending epoch)") \
    X(MSG_BARRIER_ARRIVE, "epoch",               "notice bytes", "-",            "notices, u32 sent[nodes], call", "a node reached the barrier; the notices it knows, the unacked messages it sent to each node, and the collective call it is in (kind, size, attributes hash)") \
    X(MSG_BARRIER_DONE,   "epoch",               "expected",     "-",            "notices",                  "every node arrived; the union of their notices; how many unacked messages the receiver must await") \
    X(MSG_MU_REQ,         "page,n,want",         "reply",        "-",            "-",                        "Munin: ask a page's manager for pages [page, page+n) with access `want`") \
    X(MSG_MU_GRANT,       "page,n,access,flags", "reply",        "copyset",      "n pages or -",             "Munin: the access granted (with the pages' bytes when flags say so), or a refusal") \
    X(MSG_MU_RETURN,      "page",                "reply",        "-",            "page bytes or -",          "Munin: the sender drops its copy (the master copy comes back with it)") \
    X(MSG_MU_INVAL,       "page,mode",           "ctx",          "-",            "-",                        "Munin: drop (or write-protect) your copy; send it back if it is the master") \
    X(MSG_MU_INVAL_ACK,   "page",                "ctx",          "-",            "page bytes or -",          "Munin: copy dropped or protected; the master copy if the sender held it") \
    X(MSG_MU_UPDATE,      "count",               "ctx or 0",     "epoch",        "(page,len,diff)*",         "Munin: a release's diffs for the receiver's copies (ctx 0: counted by the barrier, no ack)") \
    X(MSG_MU_UPDATE_ACK,  "-",                   "ctx",          "-",            "-",                        "Munin: updates applied (and forwarded, at the manager)") \
    X(MSG_MU_FROZEN,      "count",               "-",            "-",            "(page,8,copyset)*",        "Munin: these producer_consumer pages now have a fixed copyset: update it directly") \
    X(MSG_MU_REDUCE,      "offset,op,type",      "reply",        "operand",      "-",                        "Munin: Fetch_and_Phi at the reduction object's owner") \
    X(MSG_MU_REDUCE_REP,  "-",                   "reply",        "old value",    "-",                        "Munin: the value before the operation") \
    X(MSG_LOCK_PEEK,      "lock",                "reply",        "-",            "-",                        "read the data bound to a lock without taking it (served when the lock is free)") \
    X(MSG_LOCK_DATA,      "lock",                "reply",        "-",            "bound data or -",          "the data bound to a lock, for a MSG_LOCK_PEEK") \
    X(MSG_WHERE_ASK,      "question",            "lock or -1",   "-",            "-",                        "stall detector: the sender has waited long; where is the receiver (and does it hold this lock)?") \
    X(MSG_WHERE,          "question",            "-",            "-",            "where record",             "stall detector: the last collective call entered, still in it or not, the lock waited for, the lock held") \
    X(MSG_ADOPT_REQ,      "page",                "reply",        "-",            "-",                        "which pages around `page` of the receiver's tsr_malloc arena has it allocated?") \
    X(MSG_ADOPT_REP,      "first",               "reply",        "count,proto",  "-",                        "pages [first, first+count) are allocated, kept by protocol `proto` (count 0: `page` is not)") \
    X(MSG_DISTRIBUTE,     "image",               "waiter",       "offset",       "bytes",                    "Tmk_distribute: write the bytes at `offset` in loaded image `image` of the receiver (its globals)") \
    X(MSG_DISTRIBUTE_ACK, "-",                   "waiter",       "-",            "-",                        "the bytes of a MSG_DISTRIBUTE are written") \
    X(MSG_LAYOUT,         "-",                   "-",            "-",            "(base,id,name[48])*",      "to node 0 at tsr_init: the sender's loaded images in load order, which must be node 0's (api/layout.c)") \
    X(MSG_ECHO_REQ,       "-",                   "waiter",       "-",            "any",                      "transport round-trip probe (bench)") \
    X(MSG_ECHO_REP,       "-",                   "waiter",       "-",            "any",                      "reply to MSG_ECHO_REQ with the same payload") \
    X(MSG_ABORT,          "node",                "-",            "-",            "cause text",               "node arg0 (-1: the whole job) failed as the payload text says; the sender is stopping") \
    X(MSG_BYE,            "-",                   "-",            "-",            "-",                        "the sender finished tsr_finalize; its connection may close")

enum {
#define TSR_MSG_ENUM(name, a0, a1, a2, pl, meaning) name,
    TSR_MESSAGES(TSR_MSG_ENUM)
#undef TSR_MSG_ENUM
    MSG_COUNT
};

/* The name of a message type, for traces and errors. */
const char *msg_name(int type);

#endif
