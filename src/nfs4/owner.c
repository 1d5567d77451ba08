// SPDX-License-Identifier: MIT
/*
 * NFSv4 owner strings: see owner.h.
 */
#include "nfs4/owner.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "util/num.h"
#include "xdr/gen/nfs4.h"

/*
 * The *_r lookups want a buffer for the entry's strings and say ERANGE
 * when it is too small. A group with many members can need a large one,
 * so the buffer doubles from a stack-sized start, up to a fixed cap: an
 * entry bigger than that is treated as unknown rather than allowed to
 * take unbounded memory.
 */
#define LOOKUP_BUF_START 1024u
#define LOOKUP_BUF_MAX (1u << 20)

struct lookup {
	enum nfs4_id_kind kind;
	const char *name;   /* by name when set, else by id */
	uint32_t id;
	/* out */
	bool found;
	char out_name[NFS4_OWNER_MAX];
	size_t out_len;     /* 0: no name short enough to send */
};

/* One attempt with @buf: 0 (found or not found, see l) or ERANGE. */
static int lookup_once(struct lookup *l, char *buf, size_t len)
{
	const char *name = NULL;
	int err;

	if (l->kind == NFS4_ID_USER) {
		struct passwd pw, *res = NULL;

		if (l->name)
			err = getpwnam_r(l->name, &pw, buf, len, &res);
		else
			err = getpwuid_r((uid_t)l->id, &pw, buf, len, &res);
		if (err == ERANGE)
			return ERANGE;
		if (err || !res)
			return 0;
		l->id = (uint32_t)pw.pw_uid;
		name = pw.pw_name;
	} else {
		struct group gr, *res = NULL;

		if (l->name)
			err = getgrnam_r(l->name, &gr, buf, len, &res);
		else
			err = getgrgid_r((gid_t)l->id, &gr, buf, len, &res);
		if (err == ERANGE)
			return ERANGE;
		if (err || !res)
			return 0;
		l->id = (uint32_t)gr.gr_gid;
		name = gr.gr_name;
	}
	l->found = true;
	l->out_len = 0;
	if (name && name[0]) {
		size_t n = strlen(name);

		if (n < sizeof(l->out_name)) {
			memcpy(l->out_name, name, n);
			l->out_len = n;
		}
	}
	return 0;
}

/* Return values: true when found (l->id set, and l->out_name when it fits). */
static bool lookup(struct lookup *l)
{
	char small[LOOKUP_BUF_START];
	char *big = NULL;
	size_t len = sizeof(small);
	int err;

	l->found = false;
	l->out_len = 0;
	err = lookup_once(l, small, sizeof(small));
	while (err == ERANGE && len < LOOKUP_BUF_MAX) {
		char *p;

		len *= 2;
		p = realloc(big, len);
		if (!p)
			break;
		big = p;
		err = lookup_once(l, big, len);
	}
	free(big);
	return err == 0 && l->found;
}

uint32_t nfs4_owner_from_id(enum nfs4_id_kind kind, uint32_t id, bool numeric,
			    const char *domain, char buf[NFS4_OWNER_MAX])
{
	struct lookup l = { .kind = kind, .id = id };
	char num[16];
	int n;

	if (!numeric && domain && domain[0] && lookup(&l) && l.out_len) {
		size_t dlen = strlen(domain);

		if (l.out_len + 1 + dlen <= NFS4_OWNER_MAX) {
			memcpy(buf, l.out_name, l.out_len);
			buf[l.out_len] = '@';
			memcpy(buf + l.out_len + 1, domain, dlen);
			return (uint32_t)(l.out_len + 1 + dlen);
		}
	}
	/* 10 digits at most: always fits */
	n = snprintf(num, sizeof(num), "%u", id);

	memcpy(buf, num, (size_t)n);
	return (uint32_t)n;
}

/* A decimal id of at most 10 digits, not (uint32_t)-1. */
static bool parse_numeric(const uint8_t *s, uint32_t len, uint32_t *id)
{
	return util_parse_u32((const char *)s, len, 0, UINT32_MAX - 1, id);
}

uint32_t nfs4_owner_to_id(enum nfs4_id_kind kind, const uint8_t *s, uint32_t len,
			  const char *domain, uint32_t *id)
{
	char name[NFS4_OWNER_MAX + 1];
	const uint8_t *at = NULL;
	uint32_t i, nlen, dlen;
	struct lookup l = { .kind = kind };

	/* an empty name is INVAL, as knfsd answers */
	if (len == 0)
		return NFS4ERR_INVAL;
	if (len > NFS4_OWNER_MAX)
		return NFS4ERR_BADOWNER;
	if (parse_numeric(s, len, id))
		return NFS4_OK;
	for (i = 0; i < len; i++) {
		if (s[i] == '\0')
			return NFS4ERR_BADOWNER;
		if (s[i] == '@')
			at = s + i;
	}
	if (!at || !domain || !domain[0])
		return NFS4ERR_BADOWNER;
	nlen = (uint32_t)(at - s);
	dlen = len - nlen - 1;
	if (nlen == 0 || dlen != strlen(domain) ||
	    strncasecmp((const char *)at + 1, domain, dlen) != 0)
		return NFS4ERR_BADOWNER;
	memcpy(name, s, nlen);
	name[nlen] = '\0';
	l.name = name;
	if (!lookup(&l))
		return NFS4ERR_BADOWNER;
	*id = l.id;
	return NFS4_OK;
}
