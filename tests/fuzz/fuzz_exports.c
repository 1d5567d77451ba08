/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the exports configuration (src/export/exports*.c).
 * The input is exports(5) text for exports_parse_string(); its first
 * line is also given to exports_add_quick() as an --export argument.
 * Whatever is built is checked against what the parser promises
 * (absolute normalised paths, 1..256 rules, unique paths and ids,
 * host bits clear, bounded warnings), then every export is matched
 * against fixed peers and names and the rule found is used to squash
 * and to check the port. A failure either way must leave a message.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/exports.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct peer_spec {
	const char *addr;
	uint16_t port;
};

static const struct peer_spec peer_specs[] = {
	{ "10.1.2.3", 700 },
	{ "192.168.0.1", 2049 },
	{ "::ffff:10.1.2.3", 1023 },
	{ "2001:db8::1", 40000 },
	{ "fe80::1", 111 },
	{ "0.0.0.0", 0 },
};

static const char *const names[] = {
	NULL, "host.example.com", "WEB1.lan", "a", "",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
};

#define NPEERS (sizeof(peer_specs) / sizeof(peer_specs[0]))
#define NNAMES (sizeof(names) / sizeof(names[0]))

static struct sockaddr_storage peers[NPEERS];
static int peers_ready;

static void make_peers(void)
{
	size_t i;

	for (i = 0; i < NPEERS; i++) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&peers[i];
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&peers[i];

		memset(&peers[i], 0, sizeof(peers[i]));
		if (inet_pton(AF_INET, peer_specs[i].addr, &sin->sin_addr) == 1) {
			sin->sin_family = AF_INET;
			sin->sin_port = htons(peer_specs[i].port);
		} else if (inet_pton(AF_INET6, peer_specs[i].addr,
				     &sin6->sin6_addr) == 1) {
			sin6->sin6_family = AF_INET6;
			sin6->sin6_port = htons(peer_specs[i].port);
		} else {
			abort();
		}
	}
	peers_ready = 1;
}

/* sec=: at most EXPORTS_MAX_SEC flavours, each served (sys or none) and
 * named once; the lists asked of it agree with it. */
static void check_sec(const struct nfsx_export_client *c)
{
	uint32_t l[EXPORTS_MAX_SEC];
	unsigned int i, k, n;

	if (c->opts.nsec > EXPORTS_MAX_SEC)
		abort();
	for (i = 0; i < c->opts.nsec; i++) {
		if (c->opts.sec[i] != EXPORTS_SEC_SYS && c->opts.sec[i] != EXPORTS_SEC_NONE)
			abort();
		for (k = 0; k < i; k++)
			if (c->opts.sec[k] == c->opts.sec[i])
				abort();
	}
	n = exports_sec_list(c, l);
	if (n < 1 || n > EXPORTS_MAX_SEC)
		abort();
	for (i = 0; i < n; i++)
		if (!exports_sec_allows(c, l[i]))
			abort();
	if (exports_sec_allows(c, 390005u))
		abort();
}

static void check_client(const struct nfsx_export_client *c)
{
	unsigned int i;

	if (!c->spec || !c->spec[0])
		abort();
	switch (c->kind) {
	case NFSX_CLIENT_ANY:
	case NFSX_CLIENT_HOST:
	case NFSX_CLIENT_WILDCARD:
		break;
	case NFSX_CLIENT_IPV4:
		if (c->net.v4.addr & ~c->net.v4.mask)
			abort();
		/* contiguous mask */
		if (~c->net.v4.mask & (~c->net.v4.mask + 1))
			abort();
		break;
	case NFSX_CLIENT_IPV6:
		if (c->net.v6.prefix > 128)
			abort();
		for (i = c->net.v6.prefix; i < 128; i++)
			if (c->net.v6.addr[i / 8] & (0x80 >> (i % 8)))
				abort();
		break;
	default:
		abort();
	}
	check_sec(c);
}

static void check_export(const struct nfsx_exports *ex,
			 const struct nfsx_export *e)
{
	size_t n = strlen(e->path);
	unsigned int i, j, k;

	if (e->path[0] != '/' || strstr(e->path, "//") ||
	    (n > 1 && e->path[n - 1] == '/') || strstr(e->path, "/./") ||
	    strstr(e->path, "/../") || (n >= 2 && strcmp(e->path + n - 2, "/.") == 0) ||
	    (n >= 3 && strcmp(e->path + n - 3, "/..") == 0))
		abort();
	if (e->nclients < 1 || e->nclients > EXPORTS_MAX_CLIENTS)
		abort();
	if (exports_find_path(ex, e->path) != e || exports_find_id(ex, e->id) != e)
		abort();
	for (i = 0; i < e->nclients; i++)
		check_client(&e->clients[i]);

	for (i = 0; i < NPEERS + 1; i++) {
		for (j = 0; j < NNAMES; j++) {
			const struct sockaddr_storage *p = i < NPEERS ? &peers[i] : NULL;
			const struct nfsx_export_client *c = exports_match(e, p, names[j]);
			uint32_t uid = 0, gid = 0, gids[3] = { 0, 5, UINT32_MAX };
			uint32_t ngids = 3;

			if (!c)
				continue;
			if (c < e->clients || c >= e->clients + e->nclients)
				abort();
			exports_squash(c, &uid, &gid, gids, &ngids);
			if (c->opts.root_squash || c->opts.all_squash) {
				if (uid != c->opts.anonuid || gid != c->opts.anongid)
					abort();
				for (k = 0; k < ngids; k++)
					if (gids[k] == 0 && c->opts.anongid != 0)
						abort();
			}
			if (c->opts.all_squash && ngids)
				abort();
			(void)exports_port_ok(c, p);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nfsx_exports *ex;
	const struct nfsx_export *e;
	char err[256], *text, *nl;
	unsigned int count = 0, i;

	if (!peers_ready)
		make_peers();
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;

	err[0] = 0;
	ex = exports_parse_string(text, "fuzz", err, sizeof(err));
	if (!ex) {
		if (!err[0] || !memchr(err, 0, sizeof(err)))
			abort();
		ex = exports_new();
		if (!ex)
			abort();
	}

	/* the first line as --export DIR[:OPTIONS] */
	nl = strchr(text, '\n');
	if (nl)
		*nl = 0;
	err[0] = 0;
	count = exports_count(ex);
	if (exports_add_quick(ex, text, err, sizeof(err)) < 0) {
		if (!err[0] || exports_count(ex) != count)
			abort();
	} else if (exports_count(ex) != count + 1) {
		abort();
	}

	if (exports_count(ex) > EXPORTS_MAX ||
	    exports_warning_count(ex) > EXPORTS_MAX_WARNINGS)
		abort();
	for (i = 0; i < exports_warning_count(ex); i++)
		if (!exports_warning(ex, i))
			abort();
	count = 0;
	for (e = exports_next(ex, NULL); e; e = exports_next(ex, e)) {
		check_export(ex, e);
		count++;
	}
	if (count != exports_count(ex))
		abort();
	{
		/* the pseudo file system's flavours: each some rule's */
		uint32_t u[EXPORTS_MAX_SEC];
		unsigned int n = exports_sec_union(ex, u), k;

		if (n > EXPORTS_MAX_SEC || (count && n == 0))
			abort();
		for (k = 0; k < n; k++)
			if (u[k] != EXPORTS_SEC_SYS && u[k] != EXPORTS_SEC_NONE)
				abort();
	}
	exports_free(ex);
	free(text);
	return 0;
}
