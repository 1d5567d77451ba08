/* SPDX-License-Identifier: MIT */
/*
 * Restart recovery (RFC 7530 section 9.6.2, RFC 8881 section 8.4.2): the
 * record of which clients hold state, kept in the state directory, and
 * the grace period after a restart in which only they may reclaim.
 *
 * DESIGN
 * - STATE_DIR/nfs4-clients is a log of lines "+HEX" (a client, by the id
 *   string it gave SETCLIENTID or EXCHANGE_ID, was confirmed) and "-HEX"
 *   (its record went: lease run out, or a new instance of it). Appended
 *   and fsync'ed as it happens, so a kill -9 loses nothing the clients
 *   were told; replayed and compacted at start (the clients left are
 *   the previous run's).
 * - Grace: from the start for one lease, only when the previous run left
 *   clients. It ends early once every one of them has sent
 *   RECLAIM_COMPLETE (NFSv4.1; a 4.0 client never says it is done, so
 *   one such client keeps the whole lease, as with knfsd). With no
 *   client recorded there is no grace at all.
 * - During grace: OPEN other than CLAIM_PREVIOUS, LOCK other than a
 *   reclaim, LOCKT, I/O with the special stateids, REMOVE and RENAME
 *   answer GRACE (knfsd's rules); a reclaim by a client not in the
 *   previous run's record is RECLAIM_BAD; after grace, NO_GRACE.
 * - The record is bounded by the client table's bound; a log longer than
 *   four times its live entries is compacted.
 */
#ifndef NFSX_NFS4_RECOVERY_H
#define NFSX_NFS4_RECOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * nfs4_recov_open - load STATE_DIR/nfs4-clients (NULL @state_dir: keep
 * nothing, no grace), start grace at @now (monotonic seconds) for @lease
 * seconds if it lists clients.
 * Return values: 0; -1 with @err when the file cannot be read or written.
 */
int nfs4_recov_open(const char *state_dir, uint64_t now, uint32_t lease, char *err,
		    size_t errlen);
void nfs4_recov_close(void);

/* Client id @id (@len bytes) holds state now (@add) or no longer: the
 * set changes at once, the file at the next nfs4_recov_sync(). */
void nfs4_recov_note(const uint8_t *id, uint32_t len, bool add);

/* Write and flush what was noted since the last call; the caller holds
 * none of the NFSv4 tables' locks (a worker before its reply goes, so a
 * confirmed client is on disk before it hears so). One atomic load when
 * nothing was noted. */
void nfs4_recov_sync(void);

/* Return values: true while the grace period lasts at @now. */
bool nfs4_recov_in_grace(uint64_t now);

/* Return values: true when client id @id was in the previous run's
 * record and has not said RECLAIM_COMPLETE (it may reclaim). */
bool nfs4_recov_may_reclaim(const uint8_t *id, uint32_t len);

/* Client id @id is done reclaiming (RECLAIM_COMPLETE); grace ends when
 * every client of the previous run is. */
void nfs4_recov_reclaim_complete(const uint8_t *id, uint32_t len);

/* Clients of the previous run (tests). */
uint32_t nfs4_recov_previous(void);

#endif
