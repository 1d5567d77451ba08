/* SPDX-License-Identifier: MIT */
/*
 * Replies with an ext segment (rpc_req_set_ext, a READ sent from a file
 * mapping): the iovecs of every partial-send position, the record marker
 * covering the segment, the mapping released with the request, and the
 * kernel behaviour the design relies on: sending from a mapping whose
 * file was truncated under it fails with EFAULT and raises no signal.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "rpc/req.h"
#include "tap.h"

static struct rpc_req *new_req(void)
{
	struct rpc_req *r = calloc(1, sizeof(*r));

	r->rec = r->rec_inline;
	r->reply = r->reply_inline;
	r->reply_cap = sizeof(r->reply_inline);
	r->rec_len = 0;
	rpc_req_reset(r);
	return r;
}

/* Concatenate what rpc_req_tx_iov gives from every tx_done position and
 * compare with the expected byte stream. */
static void test_iov(void)
{
	struct rpc_req *r = new_req();
	uint8_t ext[37], want[4 + 8 + 37 + 3], got[sizeof(want)];
	struct iovec iov[3];
	size_t done, i, bad = 0, maxn = 0;

	for (i = 0; i < sizeof(ext); i++)
		ext[i] = (uint8_t)(0xa0 + i);
	xdr_enc_u32(&r->enc, 0x11111111);
	xdr_enc_u32(&r->enc, 37);
	ok(rpc_req_set_ext(r, ext, sizeof(ext), NULL, NULL, 0) == 0, "set_ext after 8 bytes");
	ok(rpc_req_set_ext(r, ext, 1, NULL, NULL, 0) < 0, "a second ext segment is refused");
	memset(r->enc.p, 0, 3);
	r->enc.p += 3;
	rpc_req_finish(r);
	ok(r->tx_len == sizeof(want), "tx_len counts marker, reply and segment (%zu)",
	   r->tx_len);
	ok(((uint32_t)r->reply[0] << 24 | (uint32_t)r->reply[1] << 16 |
	    (uint32_t)r->reply[2] << 8 | r->reply[3]) == (0x80000000u | (8 + 37 + 3)),
	   "record marker: last fragment, 48 bytes");
	memcpy(want, r->reply, 12);
	memcpy(want + 12, ext, 37);
	memset(want + 49, 0, 3);
	for (done = 0; done < r->tx_len; done++) {
		size_t pos = done;
		int n, k;

		r->tx_done = done;
		n = rpc_req_tx_iov(r, iov);
		if ((size_t)n > maxn)
			maxn = (size_t)n;
		for (k = 0; k < n; k++) {
			memcpy(got + pos, iov[k].iov_base, iov[k].iov_len);
			pos += iov[k].iov_len;
		}
		if (pos != r->tx_len || memcmp(got + done, want + done, r->tx_len - done))
			bad++;
	}
	ok(!bad, "every partial-send position gives the rest of the stream (%zu bad)", bad);
	ok(maxn == 3, "at most 3 iovecs (head, segment, tail)");
	rpc_req_release(r);
	ok(r->ext == NULL && r->ext_len == 0, "release forgets the segment");
	free(r);
}

/* A segment whose memory failed mid-send: the rest of it is zeros, the
 * tail follows, the length is unchanged. */
static void test_lost(void)
{
	struct rpc_req *r = new_req();
	uint8_t ext[5000];
	struct iovec iov[3];
	size_t i, nz = 0, total = 0;
	int n, k;

	memset(ext, 0x5a, sizeof(ext));
	xdr_enc_u32(&r->enc, 1);
	ok(rpc_req_set_ext(r, ext, sizeof(ext), NULL, NULL, 0) == 0, "segment of 5000 bytes");
	xdr_enc_u32(&r->enc, 0xfeedf00d);
	rpc_req_finish(r);
	r->tx_done = 3;
	ok(!rpc_req_ext_lost(r), "not while the head is unsent");
	r->tx_done = 8 + 1234;
	ok(rpc_req_ext_lost(r), "lost 1234 bytes into the segment");
	n = rpc_req_tx_iov(r, iov);
	for (k = 0; k < n; k++) {
		const uint8_t *p = iov[k].iov_base;

		for (i = 0; i < iov[k].iov_len && k == 0; i++)
			nz += p[i] != 0;
		total += iov[k].iov_len;
	}
	ok(n == 2 && iov[0].iov_len == 5000 - 1234 && nz == 0 &&
	   !memcmp(iov[1].iov_base, "\xfe\xed\xf0\x0d", 4),
	   "zeros for the rest of it, then the tail (%d iovecs, %zu non-zero)", n, nz);
	ok(total + r->tx_done == r->tx_len, "the record keeps its length");
	r->tx_done = r->tx_len - 2;
	ok(!rpc_req_ext_lost(r), "not once the segment is sent");
	rpc_req_release(r);
	free(r);
}

static void test_release_unmaps(void)
{
	struct rpc_req *r = new_req();
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *m = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char v;

	ok(m != MAP_FAILED && rpc_req_set_ext(r, m, 10, rpc_ext_munmap, m, (size_t)pg) == 0,
	   "set_ext with a mapping");
	rpc_req_release(r);
	ok(mincore(m, (size_t)pg, &v) < 0 && errno == ENOMEM,
	   "the mapping is gone after release");
	free(r);
}

static void test_drc_kept_refused(void)
{
	struct rpc_req *r = new_req();
	uint8_t b[4] = { 0 };

	r->drc_keyed = true;
	ok(rpc_req_set_ext(r, b, 4, NULL, NULL, 0) < 0, "a DRC-kept reply takes no segment");
	free(r);
}

/* A connected pair over 127.0.0.1, as the server's sockets are. */
static int tcp_pair(int sv[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &al) < 0)
		return -1;
	sv[1] = socket(AF_INET, SOCK_STREAM, 0);
	if (sv[1] < 0 || connect(sv[1], (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	sv[0] = accept(l, NULL, NULL);
	close(l);
	return sv[0] < 0 ? -1 : 0;
}

static volatile sig_atomic_t got_sigbus;
static void on_sigbus(int s)
{
	(void)s;
	got_sigbus = 1;
}

static void test_truncated_mapping(void)
{
	enum { LEN = 256 << 10 };
	int fd = memfd_create("nfsx-test", 0), sv[2] = { -1, -1 };
	uint8_t *buf = malloc(LEN), *m;
	ssize_t n = 0, total = 0;
	int err = 0;

	signal(SIGBUS, on_sigbus);
	memset(buf, 7, LEN);
	ok(fd >= 0 && write(fd, buf, LEN) == LEN, "a %d KiB shmem file", LEN >> 10);
	m = mmap(NULL, LEN, PROT_READ, MAP_SHARED, fd, 0);
	ok(m != MAP_FAILED, "mapped");
	ok(tcp_pair(sv) == 0, "a loopback TCP connection");
	ok(ftruncate(fd, 0) == 0, "file truncated under the mapping");
	/* the peer never reads: only the first call can copy anything */
	n = send(sv[0], m, LEN, MSG_DONTWAIT);
	if (n < 0)
		err = errno;
	else
		total = n;
	ok(n < 0 && err == EFAULT, "sendmsg from the truncated range: EFAULT (n=%zd, %s)",
	   n, n < 0 ? strerror(err) : "no error");
	ok(!got_sigbus, "no SIGBUS");
	(void)total;
	munmap(m, LEN);
	close(fd);
	close(sv[0]);
	close(sv[1]);
	free(buf);
}

int main(void)
{
	test_iov();
	test_lost();
	test_release_unmaps();
	test_drc_kept_refused();
	test_truncated_mapping();
	return tap_done();
}
