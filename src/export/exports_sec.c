/* SPDX-License-Identifier: MIT */
/*
 * Security flavours of client rules: the sec= option (exports(5)) and
 * the questions asked of it. See exports.h.
 *
 * DESIGN
 * - A flavour is its RPC number; RPCSEC_GSS will add its
 *   pseudo-flavours (one number per mechanism and service, as knfsd
 *   keeps them), so nothing here changes shape when it comes: the
 *   table below gains "served" entries.
 * - A flavour nfsxd cannot serve (krb5, krb5i, krb5p) is refused when
 *   the exports are read, naming the line, not dropped: an admin who
 *   asks for Kerberos on an export must not get it served without (or,
 *   with sec=krb5p alone, get an export no client can reach, the cause
 *   far from the symptom). A reload with such a line keeps the exports
 *   in use, as for any error.
 * - One sec= list per rule. exports(5) lets options after a second
 *   sec= apply to its flavours only (sec=krb5p,rw,sec=sys,ro); nfsxd
 *   has one set of options per rule, so a second sec= (the default
 *   options' included) is refused rather than read another way.
 */
#include <string.h>

#include "export/exports_internal.h"

struct sec_name {
	const char *name;
	uint32_t flavor;
	bool served;
};

/* mountd's names, in its order (the pseudo file system's list). */
static const struct sec_name names[] = {
	{ "krb5", 390003u, false },
	{ "krb5i", 390004u, false },
	{ "krb5p", 390005u, false },
	{ "sys", EXPORTS_SEC_SYS, true },
	{ "unix", EXPORTS_SEC_SYS, true },
	{ "none", EXPORTS_SEC_NONE, true },
	{ "null", EXPORTS_SEC_NONE, true },
};

#define NNAMES (sizeof(names) / sizeof(names[0]))

static const struct sec_name *by_name(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < NNAMES; i++)
		if (word_is(s, n, names[i].name))
			return &names[i];
	return NULL;
}

int exports_parse_sec(const struct exports_ctx *ctx, unsigned int line, const char *opt,
		      size_t n, struct nfsx_export_opts *o)
{
	const char *p = opt + 4, *end = opt + n;
	uint32_t sec[EXPORTS_MAX_SEC];
	unsigned int nsec = 0, i;

	if (o->nsec) {
		exports_error(ctx, line,
			      "\"%.*s\": a second sec= for this client (default options included): write one list, e.g. sec=sys:none (options per flavour are not supported)",
			      (int)n, opt);
		return -1;
	}
	while (p <= end) {
		const char *c = memchr(p, ':', (size_t)(end - p));
		size_t len = c ? (size_t)(c - p) : (size_t)(end - p);
		const struct sec_name *f = by_name(p, len);

		if (len == 0) {
			exports_error(ctx, line, "empty flavour in \"%.*s\"", (int)n, opt);
			return -1;
		}
		if (!f) {
			exports_error(ctx, line,
				      "unknown flavour \"%.*s\" in \"%.*s\": give sys or none",
				      (int)len, p, (int)n, opt);
			return -1;
		}
		if (!f->served) {
			exports_error(ctx, line,
				      "\"%.*s\": %s needs RPCSEC_GSS (Kerberos), which nfsxd does not serve yet: give sys or none",
				      (int)n, opt, f->name);
			return -1;
		}
		/* a flavour named twice counts once, as with mountd */
		for (i = 0; i < nsec && sec[i] != f->flavor; i++)
			;
		if (i == nsec) {
			if (nsec == EXPORTS_MAX_SEC) {
				exports_error(ctx, line, "too many flavours in \"%.*s\"",
					      (int)n, opt);
				return -1;
			}
			sec[nsec++] = f->flavor;
		}
		p += len + 1;
	}
	memcpy(o->sec, sec, nsec * sizeof(sec[0]));
	o->nsec = nsec;
	return 0;
}

bool exports_sec_allows(const struct nfsx_export_client *c, uint32_t flavor)
{
	unsigned int i;

	if (c->opts.nsec == 0)
		return flavor == EXPORTS_SEC_SYS || flavor == EXPORTS_SEC_NONE;
	for (i = 0; i < c->opts.nsec; i++)
		if (c->opts.sec[i] == flavor)
			return true;
	return false;
}

unsigned int exports_sec_list(const struct nfsx_export_client *c,
			      uint32_t out[EXPORTS_MAX_SEC])
{
	if (c->opts.nsec == 0) {
		/* knfsd's SECINFO for an export without sec= */
		out[0] = EXPORTS_SEC_SYS;
		out[1] = EXPORTS_SEC_NONE;
		return 2;
	}
	memcpy(out, c->opts.sec, c->opts.nsec * sizeof(out[0]));
	return c->opts.nsec;
}

unsigned int exports_sec_union(const struct nfsx_exports *ex,
			       uint32_t out[EXPORTS_MAX_SEC])
{
	const struct nfsx_export *e = NULL;
	bool seen[NNAMES] = { false };
	unsigned int i, k, n = 0;
	uint32_t l[EXPORTS_MAX_SEC];

	while ((e = exports_next(ex, e)) != NULL) {
		for (i = 0; i < e->nclients; i++) {
			unsigned int m = exports_sec_list(&e->clients[i], l);

			for (k = 0; k < m; k++) {
				size_t j;

				/* the first name of each flavour stands for it */
				for (j = 0; j < NNAMES && names[j].flavor != l[k]; j++)
					;
				if (j < NNAMES)
					seen[j] = true;
			}
		}
	}
	for (i = 0; i < NNAMES && n < EXPORTS_MAX_SEC; i++)
		if (seen[i])
			out[n++] = names[i].flavor;
	return n;
}

const char *exports_sec_name(uint32_t flavor)
{
	size_t i;

	for (i = 0; i < NNAMES; i++)
		if (names[i].flavor == flavor)
			return names[i].name;
	return "unknown";
}
