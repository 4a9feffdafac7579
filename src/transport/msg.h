/*
 * msg.h - every protocol message Tessera sends, in one table, with the rule
 * each must keep to be accepted.
 *
 * Each message is a 40-byte header (payload length, type, source node, three
 * 64-bit arguments, the sender's clock) followed by the payload. The clock
 * feeds only the holdup statistics (transport/holdup.c), which ignore a
 * value they cannot believe; it has no rule. "reply" arguments are request
 * ids (transport/request.h): a request carries one, its reply names it back.
 *
 * The `len` and `args` columns are checked by am_dispatch before any
 * handler runs (am_check); what they cannot say (a run of pages inside the
 * region, a payload against the request it answers, entries inside the
 * payload) the handler checks. A message that breaks a rule is rejected:
 * dropped, counted (messages_rejected) and logged with a rate limit, naming
 * the sender, the type and the rule. It never changes state.
 */
#ifndef TSR_MSG_H
#define TSR_MSG_H

#include <stdint.h>

/* Payload length rules: kind, the argument it depends on, a size. */
enum { LEN_K_MAX, LEN_K_EACH, LEN_K_UPTO_EACH };
typedef struct msg_len_rule {
    uint8_t kind, arg;
    uint32_t size;
} msg_len_rule;
#define LEN_NONE {LEN_K_MAX, 0, 0}                          /* empty */
#define LEN_ANY {LEN_K_MAX, 0, UINT32_MAX}                  /* any length */
#define LEN_MAX(n) {LEN_K_MAX, 0, (n)}                      /* at most n bytes */
#define LEN_EACH(k, n) {LEN_K_EACH, (k), (n)}               /* exactly arg k times n */
#define LEN_UPTO_EACH(k, n) {LEN_K_UPTO_EACH, (k), (n)}     /* at most arg k times n */

/* Argument rules. */
enum {
    ARG_ANY,   /* anything (checked by the handler if it matters) */
    ARG_PAGE,  /* a page number of the region */
    ARG_PAGE32,/* its low 32 bits are a page number (packed arguments) */
    ARG_COUNT, /* a count of page entries: at most the region's pages */
    ARG_LOCK,  /* a lock id: a program's lock or a flag's (MSG_FLAG_LOCKS) */
    ARG_NODE,  /* a node of the job (0 to nodes - 1) */
    ARG_NODE_OR_ALL, /* a node of the job, or -1: all of them (only MSG_ABORT) */
    ARG_U32,   /* a number kept in 32 bits (a request cycle, an epoch, a round,
                * an image id, a count): a larger value is not wrapped */
    ARG_FLAG,  /* a pause flag id, below MSG_FLAGS */
    ARG_LOCK_OR_NONE, /* a lock slot (a program's lock, below MSG_PROGRAM_LOCKS,
                       * or a flag's, MSG_PROGRAM_LOCKS + flag), or -1: none */
    ARG_REPLY, /* an outstanding request id, sent to the sender, due this type */
    ARG_GA_GET,/* Themis read: bits 0-15 a segment id below MSG_GA_SEGS, 16-31 a length 1..MSG_GA_CHUNK */
    ARG_GA_PUT,/* Themis write: bits 0-15 a segment id below MSG_GA_SEGS (16-23 byte mask, 32-63 number) */
};
#define ARGS(a0, a1, a2) {(a0), (a1), (a2)}

/* Lock ids on the wire (ARG_LOCK): the program's, below TSR_MAX_LOCKS
 * (16384), and the pause flags' own locks, MSG_FLAG_LOCKS + flag for flags
 * below MSG_FLAGS (TSR_MAX_FLAGS; sync/flag.c). */
#define MSG_PROGRAM_LOCKS 16384
#define MSG_FLAG_LOCKS (1u << 20)
#define MSG_FLAGS 4096

/* Sizes the rules use (the transport knows no page table). */
#define MSG_PAGE 4096
#define MSG_FETCH_MAX 256                       /* TSR_FETCH_AHEAD's maximum */
#define MSG_DIFF_ENTRY_MAX (8 + 5 * MSG_PAGE / 2) /* outbox entry of DIFF_MAX bytes */
#define MSG_BYTES_MAX (64u << 20) /* Tmk_distribute's, jia_send's and am_echo's limit */
/* jia_send: the most bytes a node holds for jia_recv calls not made yet. */
#define MSG_JIA_QUEUED_MAX (1u << 30)
/* Synchronization payloads (coherence/payload.h frames: write notices, data
 * bound to locks, intervals), checked frame by frame by their protocols:
 * no node accepts more than 1 GiB of them in one message (128 Mi notices). */
#define MSG_FRAMES_MAX (1u << 30)
/* Themis (ga/): global allocations alive at once, and the most bytes one
 * read or write moves (a bulk transfer is cut into chunks of this size). */
#define MSG_GA_SEGS 256
#define MSG_GA_CHUNK 32768
/* An address layout (api/layout.c): the shared settings (at most 8 of 8
 * bytes), the compared variables (util/config_match.h: at most 32 of 48
 * bytes), then at most 256 images of 64 bytes. */
#define MSG_LAYOUT_MAX (8 * 8 + 32 * 48 + 256 * 64)
/* A stall answer's entry (sync/where_tree.c): a node id, padding, its
 * where record (sync/where.h). */
#define MSG_WHERE_ENTRY 240

/*  name                arg0                   arg1            arg2            payload                     len  args  meaning */
#define TSR_MESSAGES(X) \
    X(MSG_PAGE_REQ,       "page,section",        "reply",        "count,stride", "-",                        LEN_NONE, ARGS(ARG_PAGE32, ARG_ANY, ARG_ANY), "fetch the master copies of pages page + i*stride, i < count, from their home; `section`: the replicated section the sender is in with multicast on, else 0") \
    X(MSG_PAGE_REP,       "page",                "reply",        "count,stride", "u32 versions, pages",      LEN_MAX(MSG_FETCH_MAX * (4 + MSG_PAGE)), ARGS(ARG_PAGE, ARG_REPLY, ARG_ANY), "those pages, and the home version each one is") \
    X(MSG_PAGE_PUSH,      "page",                "section",      "-",            "u32 version, pad, page",   LEN_MAX(8 + MSG_PAGE), ARGS(ARG_PAGE, ARG_ANY, ARG_ANY), "a page its home multicast in replicated section `section` for all that need it (coherence/hlrc_mcast.c); may come down a tree (MSG_TREE)") \
    X(MSG_PAGE_OFFER,     "page",                "section",      "slot",         "-",                        LEN_NONE, ARGS(ARG_PAGE, ARG_ANY, ARG_ANY), "from this node's own fault to its comm thread only, in the preallocated message `slot`: home page `page` was first read in replicated section `section`; multicast it (coherence/hlrc_mcast.c)") \
    X(MSG_DIFF,           "count",               "reply",        "-",            "(page,len,diff)*",         LEN_UPTO_EACH(0, MSG_DIFF_ENTRY_MAX), ARGS(ARG_COUNT, ARG_ANY, ARG_ANY), "a releaser's diffs for pages homed at the receiver") \
    X(MSG_DIFF_ACK,       "count",               "reply",        "-",            "(page,version)*",          LEN_EACH(0, 8), ARGS(ARG_COUNT, ARG_REPLY, ARG_ANY), "diffs applied; the versions they produced") \
    X(MSG_LOCK_ACQ,      "lock",                "cycle",        "-",            "frames",                   LEN_MAX(MSG_FRAMES_MAX), ARGS(ARG_LOCK, ARG_U32, ARG_ANY), "ask the lock's manager for the lock (the sender's request `cycle`), with the protocols' request payloads (coherence/payload.h)") \
    X(MSG_LOCK_FWD,      "lock",                "node",         "cycle",        "frames",                   LEN_MAX(MSG_FRAMES_MAX), ARGS(ARG_LOCK, ARG_NODE, ARG_U32), "the manager forwards node's request (its payloads) to the last node that asked, for that node's request `cycle`: grant it at your release") \
    X(MSG_LOCK_BOUNCE,   "lock",                "node",         "-",            "frames",                   LEN_MAX(MSG_FRAMES_MAX), ARGS(ARG_LOCK, ARG_NODE, ARG_ANY), "a forwarded request whose cycle was over (the release went to the manager): the manager grants it") \
    X(MSG_LOCK_GRANT,    "lock",                "-",            "-",            "frames",                   LEN_MAX(MSG_FRAMES_MAX), ARGS(ARG_LOCK, ARG_ANY, ARG_ANY), "the lock, from its manager or straight from its last holder, with the protocols' grant payloads (write notices, data bound to the lock)") \
    X(MSG_LOCK_TRY,      "lock",                "cycle",        "-",            "frames",                   LEN_MAX(MSG_FRAMES_MAX), ARGS(ARG_LOCK, ARG_U32, ARG_ANY), "tsr_trylock: as MSG_LOCK_ACQ, but the manager answers at once, the grant if the lock is free there, else MSG_LOCK_REFUSED, and queues nothing; the same rules as MSG_LOCK_ACQ (the sender's next cycle, not while it is the last that asked)") \
    X(MSG_LOCK_REFUSED,  "lock",                "cycle",        "-",            "-",                        LEN_NONE, ARGS(ARG_LOCK, ARG_U32, ARG_ANY), "from the lock's manager only: the lock is held, the try of the receiver's request `cycle` failed; accepted only while that cycle's try waits") \
    X(MSG_LOCK_REL,      "lock",                "cycle",        "epoch",        "frames",                   LEN_MAX(MSG_FRAMES_MAX), ARGS(ARG_LOCK, ARG_U32, ARG_U32), "give the lock back to its manager at the end of the sender's request `cycle` (nobody waits at the sender), with the protocols' release payloads (counted by the barrier ending epoch)") \
    X(MSG_BARRIER_ARRIVE, "epoch",               "entries",      "-",            "u32 sent[nodes] padded to 8, (u32 node, park, len, 0, call, frames padded to 8)*", LEN_MAX(MSG_FRAMES_MAX), ARGS(ARG_ANY, ARG_ANY, ARG_ANY), "arrivals at the barrier, from the sender itself (its own, one entry) or from its child in the tree (sync/tree.h, sync/gather.c), for nodes of the part that child heads, each once: the unacked messages they sent to each node, summed, and per node its collective call (kind, size, attributes hash) and the protocols' arrival payloads; `entries` from 1 to the part's size; epoch: the barrier the receiver gathers (or the next, while nothing of it came), at node 0 the current one; park 1 (not node 0's, only on tsr_serve's arrival, which must park, or tsr_join's): that node waits for node 0's next MSG_FORK instead of this barrier's departure (sync/barrier.c)") \
    X(MSG_BARRIER_DONE,  "epoch",               "expected",     "tree",         "[u32 expected[part - 1] padded to 8,] frames", LEN_MAX(MSG_FRAMES_MAX), ARGS(ARG_ANY, ARG_U32, ARG_ANY), "every node arrived; the protocols' departure payloads (their merge of the arrivals); how many unacked messages the receiver must await; tree 0: from node 0 (the root) only; tree 1: from the receiver's parent in the departure tree (sync/tree.h) only, the counts of the nodes of the part the receiver heads ahead of the frames, which it passes on to its children") \
    X(MSG_MU_REQ,         "page,n,want",         "reply",        "epoch",        "-",                        LEN_NONE, ARGS(ARG_PAGE32, ARG_ANY, ARG_U32), "Munin: ask a page's manager for pages [page, page+n) with access `want` (epoch: the requester's barrier epoch, this manager's or the next)") \
    X(MSG_MU_GRANT,       "page,n,access,flags", "reply",        "copyset",      "n pages or -",             LEN_MAX(0xffff * MSG_PAGE), ARGS(ARG_PAGE32, ARG_REPLY, ARG_ANY), "Munin: the access granted (with the pages' bytes when flags say so), or a refusal") \
    X(MSG_MU_RETURN,      "page",                "reply",        "-",            "page bytes or -",          LEN_MAX(MSG_PAGE), ARGS(ARG_PAGE, ARG_ANY, ARG_ANY), "Munin: the sender drops its copy (the master copy comes back with it)") \
    X(MSG_MU_INVAL,       "page,mode",           "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_PAGE32, ARG_ANY, ARG_ANY), "Munin: drop (or write-protect) your copy; send it back if it is the master") \
    X(MSG_MU_INVAL_ACK,   "page",                "reply",        "-",            "page bytes or -",          LEN_MAX(MSG_PAGE), ARGS(ARG_PAGE, ARG_REPLY, ARG_ANY), "Munin: copy dropped or protected; the master copy if the sender held it") \
    X(MSG_MU_UPDATE,      "count",               "reply or 0",   "epoch",        "(page,len,diff)*",         LEN_UPTO_EACH(0, MSG_DIFF_ENTRY_MAX), ARGS(ARG_COUNT, ARG_ANY, ARG_U32), "Munin: a release's diffs for the receiver's copies (reply 0: counted by the barrier, no ack); entry flags: forward (to the manager), dropped (the writer dropped its copy of a stable page)") \
    X(MSG_MU_UPDATE_ACK,  "count",               "reply",        "-",            "(page,8,copyset)*",        LEN_EACH(0, 16), ARGS(ARG_COUNT, ARG_REPLY, ARG_ANY), "Munin: updates applied (and forwarded, at the manager); the fixed copysets of the sender's dropped pages it was not told") \
    X(MSG_MU_FROZEN,      "count",               "-",            "epoch",        "(page,8,copyset)*",        LEN_EACH(0, 16), ARGS(ARG_COUNT, ARG_ANY, ARG_U32), "Munin: these producer_consumer pages now have a fixed copyset: update it directly (counted by the barrier)") \
    X(MSG_MU_REDUCE,      "offset,op,type",      "reply",        "operand",      "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_ANY, ARG_ANY), "Munin: Fetch_and_Phi at the reduction object's owner") \
    X(MSG_MU_FORGET,      "first",               "reply",        "count",        "-",                        LEN_NONE, ARGS(ARG_PAGE, ARG_ANY, ARG_ANY), "Munin: the sender freed its object [first, first+count) (tsr_free_local): forget those pages, which it will give out again") \
    X(MSG_MU_FORGET_ACK,  "-",                   "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_REPLY, ARG_ANY), "Munin: the pages are forgotten here") \
    X(MSG_MU_REDUCE_REP,  "-",                   "reply",        "old value",    "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_REPLY, ARG_ANY), "Munin: the value before the operation") \
    X(MSG_LOCK_PEEK,      "lock",                "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_LOCK, ARG_ANY, ARG_ANY), "read the data bound to a lock without taking it (served when the lock is free)") \
    X(MSG_LOCK_DATA,     "lock",                "reply",        "-",            "frames",                   LEN_MAX(MSG_FRAMES_MAX), ARGS(ARG_LOCK, ARG_REPLY, ARG_ANY), "the protocols' answer to a MSG_LOCK_PEEK (the data bound to the lock)") \
    X(MSG_LRC_DIFF_REQ,  "page,section",        "reply",        "lo<<32|hi",    "-",                        LEN_NONE, ARGS(ARG_PAGE32, ARG_ANY, ARG_ANY), "LRC: the receiver's diffs of `page` that cover any of its intervals lo..hi (made now if still pending), which must hold lo and hi (the intervals of notices); rejected if they name an interval after the receiver's last, or that its diffs do not hold, and it stops, named, if a collection freed those (coherence/lrc_diff.c); `section` as in MSG_PAGE_REQ") \
    X(MSG_LRC_DIFF_REP,  "page",                "reply",        "count",        "(first,last,len,diff)*",   LEN_UPTO_EACH(2, 12 + MSG_DIFF_ENTRY_MAX), ARGS(ARG_PAGE, ARG_REPLY, ARG_COUNT), "LRC: those diffs, each with the intervals it covers, padded to 4 bytes, holding every interval of the sender that the fault's notices name; none in a replicated section: they come by MSG_LRC_DIFF_PUSH") \
    X(MSG_LRC_DIFF_PUSH, "page",                "section",      "count",        "(first,last,len,diff)*",   LEN_UPTO_EACH(2, 12 + MSG_DIFF_ENTRY_MAX), ARGS(ARG_PAGE, ARG_ANY, ARG_COUNT), "LRC: a writer's diffs of `page` multicast in replicated section `section` for all that need them, as its MSG_LRC_DIFF_REP (coherence/lrc_mcast.c); may come down a tree (MSG_TREE)") \
    X(MSG_LRC_DIFF_OFFER, "page",                "section",      "slot",         "-",                        LEN_NONE, ARGS(ARG_PAGE, ARG_ANY, ARG_ANY), "LRC, from this node's own fault to its comm thread only, in the preallocated message `slot`: the writer first read `page` in replicated section `section`; multicast its pending diff (coherence/lrc_mcast.c)") \
    X(MSG_LRC_GC_ASK,    "-",                   "-",            "-",            "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_ANY, ARG_ANY), "LRC, to node 0: the sender holds more than half of TSR_LRC_GC_BYTES; hold a collection round (ignored while one is under way)") \
    X(MSG_LRC_GC_START,  "round",               "-",            "-",            "-",                        LEN_NONE, ARGS(ARG_U32, ARG_ANY, ARG_ANY), "LRC, from node 0 only: join collection round `round` (non-zero) at your next synchronization holding no lock") \
    X(MSG_LRC_GC_JOIN,   "round",               "-",            "-",            "u32 gc, vt, intervals",    LEN_MAX(MSG_FRAMES_MAX), ARGS(ARG_U32, ARG_ANY, ARG_ANY), "LRC, to node 0: the sender joins round `round` (once, not while in a barrier), with what a barrier arrival carries") \
    X(MSG_LRC_GC_GO,     "round",               "proxies",      "-",            "u32 gc, vt, intervals",    LEN_MAX(MSG_FRAMES_MAX), ARGS(ARG_U32, ARG_ANY, ARG_ANY), "LRC, from node 0 only, to nodes that joined `round`: every node joined or arrived at the barrier; the merge, as a barrier departure; collect (arg1: how many took part by their barrier arrival)") \
    X(MSG_LRC_GC_END,    "round",               "-",            "-",            "-",                        LEN_NONE, ARGS(ARG_U32, ARG_ANY, ARG_ANY), "LRC, from node 0 only, to nodes in a barrier: round `round` is over, their arrival took part for them (do not join it)") \
    X(MSG_WHERE_ASK,      "question",            "lock or -1",   "asker",        "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_LOCK_OR_NONE, ARG_NODE), "stall detector: node `asker` has waited long; where is every node on your side of the barrier tree (and does it hold this lock)? From a tree neighbour only (sync/tree.h), `question` above the last one of that asker passed here, not the receiver's own (sync/where_tree.c); passed on to the receiver's other tree neighbours (not counted in the statistics)") \
    X(MSG_WHERE,          "question",            "asker",        "count",        "(node, pad, where record)*", LEN_EACH(2, MSG_WHERE_ENTRY), ARGS(ARG_ANY, ARG_NODE, ARG_ANY), "stall detector: the records of the nodes on the sender's side of the tree, for the question of `asker`: per node the last collective call entered, still in it or not, the collective calls entered, the lock waited for, whether it holds the lock asked about, the locks it holds, a count of its moves, the message wait it is in (a WAIT_* below WAIT_KINDS), the node that wait is for (-1: any, else a node of the job), whether it is still blocked, the messages that end such waits sent and handled, the watched thread (>= 0) (sync/where.h); only from a tree neighbour the question was passed to, once, at most as many entries as nodes; at the asker every entry must name another node of the job and keep those rules, and a node's first entry counts (a batch for a question already over is ignored)") \
    X(MSG_ADOPT_REQ,      "page",                "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_PAGE, ARG_ANY, ARG_ANY), "which pages around `page` of the receiver's tsr_malloc arena has it allocated?") \
    X(MSG_ADOPT_REP,      "first",               "reply",        "count,proto,info", "-",                    LEN_NONE, ARGS(ARG_ANY, ARG_REPLY, ARG_ANY), "pages [first, first+count) are allocated, kept by protocol `proto`, which sets them up from the 16-bit `info` (Munin: the annotation); count 0: `page` is not") \
    X(MSG_DISTRIBUTE,     "image",               "reply",        "offset",       "bytes",                    LEN_MAX(MSG_BYTES_MAX), ARGS(ARG_U32, ARG_ANY, ARG_ANY), "Tmk_distribute: write the bytes at `offset` in loaded image `image` of the receiver (its globals)") \
    X(MSG_DISTRIBUTE_ACK, "-",                   "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_REPLY, ARG_ANY), "the bytes of a MSG_DISTRIBUTE are written") \
    X(MSG_TMK_COND_WAIT,  "cond",                "reply",        "wake",         "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_ANY, ARG_ANY), "to the manager of condition `cond` (lock * 4 + cond id, below 4096 * 4; the manager is lock % nodes): record the sender as waiting (one wait per node), acknowledge at `reply`, wake it later at request id `wake`, not 0 (api/tmk_cond.c)") \
    X(MSG_TMK_COND_QUEUED, "-",                  "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_REPLY, ARG_ANY), "the wait is recorded: the waiter may release the lock") \
    X(MSG_TMK_COND_SIGNAL, "cond",               "all",          "-",            "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_ANY, ARG_ANY), "to the manager of condition `cond` (checked as for MSG_TMK_COND_WAIT): wake its longest waiter (all 0) or every waiter (all 1; no other value)") \
    X(MSG_TMK_COND_WAKE,  "-",                   "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_REPLY, ARG_ANY), "from the manager: the condition waited on was signalled; take the lock again") \
    X(MSG_JIA_MSG,        "tag",                 "channel",      "-",            "bytes",                    LEN_MAX(MSG_BYTES_MAX), ARGS(ARG_ANY, ARG_ANY, ARG_ANY), "jia_send: a message with a 32-bit `tag` on `channel` (0 the program's, 1 jia_reduce's, 2 jia_bcast's, 3 jia_loadcheck's; no other), queued at the receiver until a jia_recv takes it; refused once the receiver holds MSG_JIA_QUEUED_MAX bytes untaken (api/jia_msg.c)") \
    X(MSG_JIA_WAIT,       "epoch",               "-",            "-",            "-",                        LEN_NONE, ARGS(ARG_U32, ARG_ANY, ARG_ANY), "to node 0: the sender entered its jia_wait number `epoch`, which must be node 0's current one, once per node") \
    X(MSG_JIA_GO,         "epoch",               "-",            "-",            "-",                        LEN_NONE, ARGS(ARG_U32, ARG_ANY, ARG_ANY), "from node 0 only: every node entered jia_wait number `epoch`, which must be the receiver's own; it returns") \
    X(MSG_LAYOUT,         "-", "-", "-", "u64 settings[], (hash,text[40])[], (base,id,name[48])*", LEN_MAX(MSG_LAYOUT_MAX), ARGS(ARG_ANY, ARG_ANY, ARG_ANY), "at tsr_init, node 0's shared settings (util/config.h, config_shared), its compared TSR_* variables (util/config_match.h) and its loaded images in load order, which must be the receiver's, passed down the barrier tree (sync/tree.h; api/layout.c): from the receiver's tree parent only, once; not to node 0") \
    X(MSG_GA_GET,         "offset",              "reply",        "seg,len,seq",  "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_ANY, ARG_GA_GET), "Themis: read len bytes at `offset` of the receiver's segment `seg`; seq (Sequencer only, else 0) is the sender's number for this pair of nodes. The handler checks the segment exists, the bytes lie inside it, and seq is not one already served or queued nor too far ahead") \
    X(MSG_GA_GET_REP,     "seq",                 "reply",        "-",            "bytes",                    LEN_MAX(MSG_GA_CHUNK), ARGS(ARG_ANY, ARG_REPLY, ARG_ANY), "Themis: the bytes read; the handler checks the length and seq against the request") \
    X(MSG_GA_PUT,         "offset",              "reply",        "seg,mask,seq", "bytes",                    LEN_MAX(MSG_GA_CHUNK), ARGS(ARG_ANY, ARG_ANY, ARG_GA_PUT), "Themis: write the payload at `offset` of segment `seg` (only the bytes of `mask`, if not 0, of an aligned 8-byte line); the handler checks as for MSG_GA_GET, a non-empty payload, and that a mask comes only with an aligned 8-byte write") \
    X(MSG_GA_PUT_ACK,     "seq",                 "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_REPLY, ARG_ANY), "Themis: the write is done; the handler checks seq against the request") \
    X(MSG_FORK,           "epoch",               "count",        "-",            "u64 note[3], (u32 expected, u32 len, frames)*", LEN_MAX(24 + 2 * (8 + MSG_FRAMES_MAX)), ARGS(ARG_U32, ARG_ANY, ARG_ANY), "from node 0 only, to a node parked (MSG_BARRIER_ARRIVE) at barrier `epoch`: the departures of the `count` (1 or 2) barriers since, each as MSG_BARRIER_DONE's, and node 0's note: a fork (function at an offset of an executable segment of a loaded image, and its argument) or the end of forks (sync/barrier.c, api/fork.c)") \
    X(MSG_FLAG_SET,       "flag",                "-",            "-",            "-",                        LEN_NONE, ARGS(ARG_FLAG, ARG_ANY, ARG_ANY), "to the flag's manager: the flag is up (the sender holds the flag's lock); wake its waiters (sync/flag.c)") \
    X(MSG_FLAG_CLEAR,     "flag",                "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_FLAG, ARG_ANY, ARG_ANY), "to the flag's manager: the flag is down; answer with MSG_FLAG_DOWN") \
    X(MSG_FLAG_WAIT,      "flag",                "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_FLAG, ARG_ANY, ARG_ANY), "to the flag's manager: answer when the flag is up (at once if it is); one wait per node and flag") \
    X(MSG_FLAG_UP,        "flag",                "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_FLAG, ARG_REPLY, ARG_ANY), "the flag waited for is up") \
    X(MSG_FLAG_DOWN,      "flag",                "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_FLAG, ARG_REPLY, ARG_ANY), "the flag is down at its manager: a set made after this answer is not undone by the clear") \
    X(MSG_TREE,           "inner type",          "root",         "nodes",        "u64 args[3], u16 node[nodes] (root first) padded to 8, inner payload", LEN_MAX(24 + 2 * 4096 + 8 + (1u << 20)), ARGS(ARG_ANY, ARG_NODE, ARG_ANY), "a multicast from `root` down a binomial tree over the listed nodes: pass it to your children, then run the inner message as from root (multicast/multicast.c)") \
    X(MSG_ECHO_REQ,       "-",                   "reply",        "-",            "any",                      LEN_MAX(MSG_BYTES_MAX), ARGS(ARG_ANY, ARG_ANY, ARG_ANY), "transport round-trip probe (bench)") \
    X(MSG_ECHO_REP,       "-",                   "reply",        "-",            "any",                      LEN_MAX(MSG_BYTES_MAX), ARGS(ARG_ANY, ARG_REPLY, ARG_ANY), "reply to MSG_ECHO_REQ with the same payload") \
    X(MSG_CLOCK_ASK,      "-",                   "reply",        "-",            "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_ANY, ARG_ANY), "with tracing on, to the sender's barrier-tree parent at start-up: what do you make of node 0's clock? (transport/clock.c); answered once the receiver knows; a request id, and one question at a time from a node") \
    X(MSG_CLOCK,          "clock",               "reply",        "rtt",          "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_REPLY, ARG_ANY), "the sender's estimate of node 0's CLOCK_REALTIME in ns when it answered (node 0: its clock), and the sum of the round trips that estimate was measured in (ns); any value is accepted, and they only place the receiver's events on the timeline") \
    X(MSG_ABORT,          "node",                "-",            "-",            "cause text",               LEN_MAX(4096), ARGS(ARG_NODE_OR_ALL, ARG_ANY, ARG_ANY), "node arg0 (-1: the whole job) failed as the payload text says; the sender is stopping") \
    X(MSG_BYE,            "-",                   "-",            "-",            "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_ANY, ARG_ANY), "the sender finished tsr_finalize; its connection may close") \
    X(MSG_HEARTBEAT,      "-",                   "-",            "-",            "-",                        LEN_NONE, ARGS(ARG_ANY, ARG_ANY, ARG_ANY), "the sender's comm thread is alive (sent every TSR_HEARTBEAT/4 s; not counted in the statistics)")

enum {
#define TSR_MSG_ENUM(name, a0, a1, a2, pl, len, args, meaning) name,
    TSR_MESSAGES(TSR_MSG_ENUM)
#undef TSR_MSG_ENUM
    MSG_COUNT
};

/* The name of a message type, for traces and errors. */
const char *msg_name(int type);

#endif
