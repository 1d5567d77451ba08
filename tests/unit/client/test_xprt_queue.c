/* SPDX-License-Identifier: MIT */
/*
 * Fair transmit queue (src/client/xprt_queue.c): owners served
 * round-robin, FIFO within an owner, replay at the front, removal.
 */
#include <stdlib.h>

#include "client/xprt_queue.h"
#include "tap.h"

struct item {
	struct nc_xq_item qi;
	unsigned owner;
	unsigned seq;
};

static struct item *pop(struct nc_xq *q)
{
	struct nc_xq_item *it = nc_xq_pop(q);

	return it ? nc_container_of(it, struct item, qi) : NULL;
}

int main(void)
{
	static struct item a[1000], b, c[3], many[100];
	struct nc_xq q;
	struct item *it;
	unsigned i, pos_b = 0, n, next_a = 0;
	bool fifo = true, rr = true;

	nc_xq_init(&q);
	ok(nc_xq_pop(&q) == NULL && nc_xq_len(&q) == 0, "empty queue pops nothing");

	/* Owner A queues 1000 calls, then owner B queues one. */
	for (i = 0; i < 1000; i++) {
		a[i].owner = 1;
		a[i].seq = i;
		nc_xq_push(&q, &a[i].qi, 1);
	}
	b.owner = 2;
	nc_xq_push(&q, &b.qi, 2);
	ok(nc_xq_len(&q) == 1001, "1001 queued");
	for (n = 1; (it = pop(&q)); n++) {
		if (it == &b) {
			pos_b = n;
			continue;
		}
		if (it->seq != next_a)
			fifo = false;
		next_a = it->seq + 1;
	}
	ok(n - 1 == 1001, "1001 popped (%u)", n - 1);
	ok(pos_b > 0 && pos_b <= 2, "B's single call is transmitted among the first two (at %u)",
	   pos_b);
	ok(fifo, "A's calls leave in the order they were queued");
	ok(nc_xq_len(&q) == 0, "queue drained");

	/* Three owners with 3, 1 and 2 items: A B C A C A. */
	{
		static struct item x[6];
		const unsigned owners[6] = { 1, 1, 1, 2, 3, 3 };
		const unsigned want[6] = { 0, 3, 4, 1, 5, 2 };

		for (i = 0; i < 6; i++) {
			x[i].owner = owners[i];
			x[i].seq = i;
			nc_xq_push(&q, &x[i].qi, owners[i]);
		}
		for (i = 0; i < 6; i++) {
			it = pop(&q);
			if (!it || it->seq != want[i])
				rr = false;
		}
		ok(rr, "three owners are served round-robin, FIFO each");
	}

	/* Replay: pushed back at the front, owner first in line. */
	for (i = 0; i < 3; i++) {
		c[i].seq = i;
		nc_xq_push(&q, &c[i].qi, 7);
	}
	b.seq = 99;
	nc_xq_push(&q, &b.qi, 2);
	it = pop(&q); /* c[0] leaves */
	ok(it == &c[0], "first queued leaves first");
	nc_xq_push_front(&q, &c[0].qi, 7);
	ok(pop(&q) == &c[0], "a replayed call goes out before anything else");
	ok(nc_xq_item_owner(&c[1].qi) == 7, "owner id of a queued item");

	/* Removal from the middle and of an owner's last item. */
	nc_xq_remove(&q, &c[1].qi);
	ok(nc_xq_len(&q) == 2, "remove unlinks one item");
	nc_xq_remove(&q, &c[1].qi);
	ok(nc_xq_len(&q) == 2, "removing an item twice is harmless");
	it = pop(&q);
	ok(it == &b || it == &c[2], "remaining items still pop");
	it = pop(&q);
	ok((it == &b || it == &c[2]) && nc_xq_len(&q) == 0 && !pop(&q),
	   "both remaining items popped, queue empty");
	nc_xq_remove(&q, &b.qi);
	ok(nc_xq_len(&q) == 0, "removing a popped item does nothing");

	/* Many owners: records of empty owners beyond the cache are freed. */
	for (i = 0; i < 100; i++) {
		many[i].seq = i;
		nc_xq_push(&q, &many[i].qi, 1000 + i);
	}
	ok(q.nowners >= 100, "one owner record per owner (%u)", q.nowners);
	for (i = 0; i < 100 && (it = pop(&q)); i++)
		if (it->seq != i)
			break;
	ok(i == 100, "100 owners with one call each leave in arrival order");
	ok(q.nowners <= NC_XQ_KEEP_OWNERS, "empty owner records trimmed to %u (now %u)",
	   NC_XQ_KEEP_OWNERS, q.nowners);
	nc_xq_fini(&q);
	return tap_done();
}
