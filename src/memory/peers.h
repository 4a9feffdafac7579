/*
 * peers.h - the memory of this host's other nodes (TSR_FETCH=direct).
 *
 * Nodes on one host can read each other's pages without asking: each maps
 * the shared-memory file of every other node of its host (region.h) for
 * reading, and a page fetch copies the home's bytes itself instead of
 * waiting for the home's comm thread, which may be asleep behind the
 * home's computation. What the home must still learn is that its page was
 * copied, so that its next release announces the page's next version
 * (hlrc.c): each node keeps, in a second shared file beside its page
 * table, one copy log per source node, a ring of page numbers the source
 * writes and the home drains at its releases. The page tables also say
 * which pages of a node's tsr_malloc arena it has allocated, so that the
 * host's other nodes adopt them without asking (coherence/adopt.c).
 */
#ifndef TSR_PEERS_H
#define TSR_PEERS_H

#include <stdint.h>

#include "memory/region.h"

/* region_init: the page table, in this node's shared metadata file. */
page_meta *peers_meta_init(void);
/* Before transport_start: names the files the backend publishes. */
void peers_share(void);
/* After the first barrier (every node has published): maps this host's
 * other nodes' memory; a node whose memory cannot be mapped is served by
 * messages, and said at tsr_finalize (peers_report). */
void peers_map(void);
/* At tsr_finalize: says which peers' memory peers_map could not map. */
void peers_report(void);

/* Page p's bytes at node `home`, for reading; NULL if that node's memory
 * is not mapped here. Async-signal-safe, like the rest below. */
const char *peer_page(int home, uint32_t p);
/* The version of page p in home's page table. */
uint32_t peer_version(int home, uint32_t p);
/* The state of page p in home's page table (its protocol's meaning). */
uint8_t peer_state(int home, uint32_t p);
/* The protocol that keeps page p in node's page table (page_meta.proto). */
uint8_t peer_proto(int node, uint32_t p);
/* Logs a copy of home's page p that this node takes: once before reading
 * its version, once after its bytes (see hlrc_fetch.c). One thread at a
 * time, the one that fetches (as for readahead's streams): a log has one
 * writer. */
void peer_log_copy(int home, uint32_t p);
/* At this node, for each page another node logged a copy of since the
 * last call: fn(that node, p). Application thread. */
void peers_drain_copies(void (*fn)(int source, uint32_t p));
/* Whether another node of this host has logged a copy of page p that no
 * drain has taken yet: a copy that began after the last drain, which may
 * still be under way. Full fence first: a home that has just made p
 * writable and then finds no copy here knows that any later copier sees
 * that state (hlrc.c, flush_home_page). Application thread. */
int peers_copying(uint32_t p);
/* Whether other nodes of this host copy pages straight from this node's
 * memory (after peers_map). */
int peers_direct(void);

#endif
