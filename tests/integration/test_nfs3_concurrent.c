/* SPDX-License-Identifier: MIT */
/*
 * Concurrent clients writing different regions of one file: 8 threads,
 * each with its own libnfs context (its own TCP connection, so the calls
 * land on different event loops and run on different workers at once),
 * write interleaved 64 KiB stripes of one file with UNSTABLE writes and
 * commit them; then the local file must hold every stripe of every
 * writer, byte for byte, and nothing else.
 *   test_nfs3_concurrent PORT EXPORT_DIR
 */
#include <fcntl.h>
#include <nfsc/libnfs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

#define WRITERS 8
#define STRIPE (64u * 1024u)
#define ROUNDS 16                /* stripes per writer: 8 MiB in all */

static unsigned int port;
static const char *export_dir;

struct writer {
	pthread_t t;
	int id;
	int errors;
	char why[256];
};

static uint8_t pattern(int id, unsigned int round, size_t i)
{
	return (uint8_t)(id * 31 + round * 7 + i * 13 + (i >> 8));
}

static void *write_stripes(void *arg)
{
	struct writer *w = arg;
	struct nfs_context *nfs = nfs_init_context();
	struct nfsfh *fh = NULL;
	struct nfs_url *u = NULL;
	uint8_t *buf = malloc(STRIPE);
	char url[4200];
	unsigned int r;
	size_t i;

	snprintf(url, sizeof(url), "nfs://127.0.0.1%s?nfsport=%u&mountport=%u&version=3",
		 export_dir, port, port);
	if (!nfs || !buf || !(u = nfs_parse_url_dir(nfs, url)) ||
	    nfs_mount(nfs, u->server, u->path) < 0 ||
	    nfs_open(nfs, "/shared", O_WRONLY, &fh) < 0) {
		snprintf(w->why, sizeof(w->why), "mount/open: %s",
			 nfs ? nfs_get_error(nfs) : "no context");
		w->errors++;
		goto out;
	}
	for (r = 0; r < ROUNDS; r++) {
		uint64_t off = ((uint64_t)r * WRITERS + (uint64_t)w->id) * STRIPE;

		for (i = 0; i < STRIPE; i++)
			buf[i] = pattern(w->id, r, i);
		if (nfs_pwrite(nfs, fh, off, STRIPE, buf) != (int)STRIPE) {
			snprintf(w->why, sizeof(w->why), "pwrite at %llu: %s",
				 (unsigned long long)off, nfs_get_error(nfs));
			w->errors++;
			break;
		}
	}
	if (!w->errors && nfs_fsync(nfs, fh) < 0) {
		snprintf(w->why, sizeof(w->why), "fsync: %s", nfs_get_error(nfs));
		w->errors++;
	}
out:
	if (fh)
		nfs_close(nfs, fh);
	if (u)
		nfs_destroy_url(u);
	if (nfs)
		nfs_destroy_context(nfs);
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	struct writer w[WRITERS];
	char path[4200];
	uint8_t *buf = malloc(STRIPE);
	unsigned int r, bad = 0;
	struct stat st;
	int i, fd, errors = 0;

	if (argc != 3 || !buf) {
		fprintf(stderr, "usage: test_nfs3_concurrent PORT EXPORT_DIR\n");
		return 2;
	}
	port = (unsigned int)atoi(argv[1]);
	export_dir = argv[2];
	snprintf(path, sizeof(path), "%s/shared", export_dir);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0666);
	/* Writable by the clients' squashed root, whatever the umask. */
	ok(fd >= 0 && fchmod(fd, 0666) == 0, "create the shared file locally");
	if (fd >= 0)
		close(fd);

	for (i = 0; i < WRITERS; i++) {
		w[i].id = i;
		w[i].errors = 0;
		w[i].why[0] = 0;
		pthread_create(&w[i].t, NULL, write_stripes, &w[i]);
	}
	for (i = 0; i < WRITERS; i++) {
		pthread_join(w[i].t, NULL);
		errors += w[i].errors;
		if (w[i].errors)
			printf("# writer %d: %s\n", i, w[i].why);
	}
	ok(errors == 0, "%d writers each wrote %d stripes of %u bytes and committed",
	   WRITERS, ROUNDS, STRIPE);

	ok(stat(path, &st) == 0 &&
	   st.st_size == (off_t)WRITERS * ROUNDS * STRIPE,
	   "the file is %u bytes", WRITERS * ROUNDS * STRIPE);
	fd = open(path, O_RDONLY);
	for (r = 0; fd >= 0 && r < ROUNDS; r++) {
		for (i = 0; i < WRITERS; i++) {
			off_t off = ((off_t)r * WRITERS + i) * STRIPE;
			size_t k;

			if (pread(fd, buf, STRIPE, off) != (ssize_t)STRIPE) {
				bad++;
				continue;
			}
			for (k = 0; k < STRIPE; k++) {
				if (buf[k] != pattern(i, r, k)) {
					bad++;
					break;
				}
			}
		}
	}
	if (fd >= 0)
		close(fd);
	ok(fd >= 0 && bad == 0, "every stripe holds its writer's bytes (%u bad of %d)",
	   bad, WRITERS * ROUNDS);
	free(buf);
	return tap_done();
}
