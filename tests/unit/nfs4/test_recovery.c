// SPDX-License-Identifier: MIT
/*
 * Unit tests of the restart record and grace period (src/nfs4/recovery.c)
 * with the test's own clock and a state directory of its own: no grace
 * without recorded clients; the record replayed after a "restart"
 * (close, open); who may reclaim; grace ending at the lease or once every
 * previous client said RECLAIM_COMPLETE; clients that did not come back
 * dropped at its end; a malformed log line skipped; compaction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfs4/recovery.h"
#include "../../tap.h"

#define LEASE 10u

static char dir[] = "/tmp/nfsx-recov-XXXXXX";
static char file[64];

static const uint8_t A[] = "client-A", B[] = "client-B", C[] = "client-C";

static int restart(uint64_t now)
{
	char err[256] = "";

	nfs4_recov_close();
	if (nfs4_recov_open(dir, now, LEASE, err, sizeof(err)) < 0) {
		printf("# %s\n", err);
		return -1;
	}
	return 0;
}

static long lines(void)
{
	FILE *f = fopen(file, "r");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int main(void)
{
	FILE *f;
	int i;

	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	snprintf(file, sizeof(file), "%s/nfs4-clients", dir);

	ok(restart(100) == 0 && !nfs4_recov_in_grace(100) && nfs4_recov_previous() == 0,
	   "first start, nothing recorded: no grace");
	ok(!nfs4_recov_may_reclaim(A, sizeof(A)), "... and nobody may reclaim");
	nfs4_recov_note(A, sizeof(A), true);
	nfs4_recov_note(B, sizeof(B), true);
	nfs4_recov_note(C, sizeof(C), true);
	nfs4_recov_note(C, sizeof(C), false);
	ok(lines() == 0 && nfs4_recov_may_reclaim(A, sizeof(A)) == false,
	   "noted: nothing written yet (the caller may hold its tables' locks)");
	nfs4_recov_sync();
	ok(lines() == 4, "nfs4_recov_sync: four lines, in the order noted (%ld)", lines());
	nfs4_recov_sync();
	ok(lines() == 4, "a second sync writes nothing more");

	/* ---- a restart: A and B may reclaim ---- */
	ok(restart(1000) == 0 && nfs4_recov_previous() == 2 && nfs4_recov_in_grace(1000),
	   "restart with A and B recorded: grace");
	ok(lines() == 2, "the log compacted to its two clients (%ld)", lines());
	ok(nfs4_recov_may_reclaim(A, sizeof(A)) && nfs4_recov_may_reclaim(B, sizeof(B)),
	   "A and B may reclaim");
	ok(!nfs4_recov_may_reclaim(C, sizeof(C)), "C (gone before the restart) may not");
	nfs4_recov_note(A, sizeof(A), true);
	nfs4_recov_reclaim_complete(A, sizeof(A));
	ok(!nfs4_recov_may_reclaim(A, sizeof(A)) && nfs4_recov_in_grace(1001),
	   "A done reclaiming: it may no longer; B still may, grace goes on");
	ok(nfs4_recov_in_grace(1000 + LEASE - 1) && !nfs4_recov_in_grace(1000 + LEASE),
	   "grace ends after one lease");
	ok(!nfs4_recov_may_reclaim(B, sizeof(B)), "no reclaim after grace");

	/* ---- B did not come back: it left the record at grace's end ---- */
	ok(restart(2000) == 0 && nfs4_recov_previous() == 1 && nfs4_recov_may_reclaim(A, sizeof(A)) &&
	   !nfs4_recov_may_reclaim(B, sizeof(B)),
	   "next restart: only A, which came back, is recorded");
	nfs4_recov_note(A, sizeof(A), true);
	nfs4_recov_reclaim_complete(A, sizeof(A));
	ok(!nfs4_recov_in_grace(2001), "every previous client said RECLAIM_COMPLETE: grace ends at once");

	/* ---- a client that goes during grace ---- */
	nfs4_recov_note(B, sizeof(B), true);
	ok(restart(3000) == 0 && nfs4_recov_previous() == 2, "A and B recorded again");
	nfs4_recov_note(B, sizeof(B), false);
	nfs4_recov_reclaim_complete(A, sizeof(A));
	ok(!nfs4_recov_in_grace(3001), "B's record gone, A complete: grace ends");

	/* ---- a damaged log ---- */
	f = fopen(file, "a");
	if (f) {
		fputs("garbage\n+zz\n-\n+4142\n", f);
		fclose(f);
	}
	ok(restart(4000) == 0 && nfs4_recov_may_reclaim((const uint8_t *)"AB", 2),
	   "malformed lines are skipped, the good one after them counts");

	/* ---- compaction of a long log ---- */
	for (i = 0; i < 200; i++) {
		nfs4_recov_note(C, sizeof(C), true);
		nfs4_recov_note(C, sizeof(C), false);
		nfs4_recov_sync();
	}
	ok(lines() < 100, "a log far longer than its clients is compacted (%ld lines)", lines());

	/* ---- no state directory: nothing kept ---- */
	nfs4_recov_close();
	ok(nfs4_recov_open(NULL, 5000, LEASE, NULL, 0) == 0 && !nfs4_recov_in_grace(5000),
	   "no state directory: no record, no grace");
	nfs4_recov_close();
	unlink(file);
	rmdir(dir);
	return tap_done();
}
