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

/*      name              arg0      arg1     arg2      payload                  meaning */
#define TSR_MESSAGES(X)                                                                      \
    X(MSG_PAGE_REQ,      "page",  "waiter", "-",      "-",                    "fetch a page's master copy from its home") \
    X(MSG_PAGE_REP,      "page",  "waiter", "version", "page bytes",          "the page, and the home version it is") \
    X(MSG_DIFF,          "count", "waiter", "-",      "(page,len,diff)*",     "a releaser's diffs for pages homed at the receiver") \
    X(MSG_DIFF_ACK,      "count", "waiter", "-",      "(page,version)*",      "diffs applied; the versions they produced") \
    X(MSG_LOCK_ACQ,      "lock",  "-",      "-",      "-",                    "ask the lock's manager for the lock") \
    X(MSG_LOCK_GRANT,    "lock",  "-",      "-",      "notices",              "the lock, with the write notices it carries") \
    X(MSG_LOCK_REL,      "lock",  "-",      "-",      "notices",              "give the lock back, with the releaser's new notices") \
    X(MSG_BARRIER_ARRIVE,"epoch", "-",      "-",      "notices",              "a node reached the barrier; the notices it knows") \
    X(MSG_BARRIER_DONE,  "epoch", "-",      "-",      "notices",              "every node arrived; the union of their notices") \
    X(MSG_ECHO_REQ,      "-",     "waiter", "-",      "any",                  "transport round-trip probe (bench)") \
    X(MSG_ECHO_REP,      "-",     "waiter", "-",      "any",                  "reply to MSG_ECHO_REQ with the same payload") \
    X(MSG_ABORT,         "node",  "-",      "-",      "-",                    "node arg0 failed; the sender is stopping (relays the cause)") \
    X(MSG_BYE,           "-",     "-",      "-",      "-",                    "the sender finished tsr_finalize; its connection may close")

enum {
#define TSR_MSG_ENUM(name, a0, a1, a2, pl, meaning) name,
    TSR_MESSAGES(TSR_MSG_ENUM)
#undef TSR_MSG_ENUM
    MSG_COUNT
};

/* The name of a message type, for traces and errors. */
const char *msg_name(int type);

#endif
