/* SPDX-License-Identifier: MIT */
/* Pool of large buffers: see bigbuf.h. */
#include "rpc/bigbuf.h"

#include <sys/mman.h>

void rpc_bigpool_init(struct rpc_bigpool *p, size_t cap, unsigned int keep)
{
	size_t page = 4096;

	pthread_mutex_init(&p->lock, NULL);
	p->free = NULL;
	p->nfree = 0;
	p->keep = keep;
	p->cap = (cap + page - 1) / page * page;
}

void rpc_bigpool_fini(struct rpc_bigpool *p)
{
	while (p->free) {
		void *b = p->free;

		p->free = *(void **)b;
		munmap(b, p->cap);
	}
	p->nfree = 0;
	pthread_mutex_destroy(&p->lock);
}

void *rpc_big_get(struct rpc_bigpool *p)
{
	void *b;

	pthread_mutex_lock(&p->lock);
	b = p->free;
	if (b) {
		p->free = *(void **)b;
		p->nfree--;
	}
	pthread_mutex_unlock(&p->lock);
	if (b)
		return b;
	b = mmap(NULL, p->cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return b == MAP_FAILED ? NULL : b;
}

void rpc_big_put(struct rpc_bigpool *p, void *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->nfree < p->keep) {
		*(void **)b = p->free;
		p->free = b;
		p->nfree++;
		b = NULL;
	}
	pthread_mutex_unlock(&p->lock);
	if (b)
		munmap(b, p->cap);
}
