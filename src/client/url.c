/* SPDX-License-Identifier: MIT */
/*
 * nfs:// URLs: nfs://host[:port]/path[?opt=value&...], host a name, an
 * IPv4 address or [IPv6]. The path is percent-decoded; options are
 * strict numbers (no sign, no trailing junk, range-checked).
 */
#include "client/nfsx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/num.h"

static int bad(char *err, size_t errlen, const char *fmt, const char *what)
{
	snprintf(err, errlen, fmt, what);
	return -EINVAL;
}

static int decode_path(const char *s, size_t len, char *out, size_t outlen)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c == '%') {
			int h, l;

			if (i + 2 >= len)
				return -1;
			h = util_hexval(s[i + 1]);
			l = util_hexval(s[i + 2]);
			if (h < 0 || l < 0 || (h == 0 && l == 0))
				return -1;
			c = (char)(h * 16 + l);
			i += 2;
		}
		if (o + 1 >= outlen)
			return -1;
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

static int option(struct nfsx_url *u, const char *opt, size_t len, char *err, size_t errlen)
{
	char kv[128], key[32];
	const char *eq, *val;
	size_t klen, vlen;
	uint32_t v;

	if (len >= sizeof(kv))
		return bad(err, errlen, "option too long: %.100s...", opt);
	memcpy(kv, opt, len);
	kv[len] = '\0';
	eq = strchr(kv, '=');
	if (!eq)
		return bad(err, errlen, "option without a value: %s", kv);
	klen = (size_t)(eq - kv);
	val = eq + 1;
	vlen = len - klen - 1;
	if (klen >= sizeof(key))
		return bad(err, errlen, "unknown option in %s", kv);
	memcpy(key, kv, klen);
	key[klen] = '\0';
	if (!strcmp(key, "uid")) {
		if (!util_parse_u32(val, vlen, 0, UINT32_MAX, &v))
			return bad(err, errlen, "bad uid in %s", kv);
		u->opts.uid = (uint32_t)v;
	} else if (!strcmp(key, "gid")) {
		if (!util_parse_u32(val, vlen, 0, UINT32_MAX, &v))
			return bad(err, errlen, "bad gid in %s", kv);
		u->opts.gid = (uint32_t)v;
	} else if (!strcmp(key, "version")) {
		/* "4": the highest minor version both sides speak (the
		 * session tries 4.2, then 4.1); NFSv4.0 is not spoken */
		u->opts.minor = 0;
		if (!strcmp(val, "3")) {
			u->version = 3;
		} else if (!strcmp(val, "4")) {
			u->version = 4;
		} else if (!strcmp(val, "4.1")) {
			u->version = 4;
			u->opts.minor = 1;
		} else if (!strcmp(val, "4.2")) {
			u->version = 4;
			u->opts.minor = 2;
		} else {
			return bad(err, errlen, "unsupported version in %s (3, 4, 4.1 or 4.2)",
				   kv);
		}
		u->opts.version = u->version;
	} else if (!strcmp(key, "nconnect")) {
		if (!util_parse_u32(val, vlen, 1, 16, &v))
			return bad(err, errlen, "bad nconnect in %s (1-16)", kv);
		u->opts.nconnect = (unsigned)v;
	} else if (!strcmp(key, "mountport")) {
		if (!util_parse_u32(val, vlen, 1, 65535, &v))
			return bad(err, errlen, "bad mountport in %s", kv);
		u->opts.mount_port = (uint16_t)v;
	} else if (!strcmp(key, "timeo")) {
		if (!util_parse_u32(val, vlen, 1, 3600000, &v))
			return bad(err, errlen, "bad timeo in %s (1-3600000 ms)", kv);
		u->opts.timeo_ms = (unsigned)v;
	} else if (!strcmp(key, "retrans")) {
		if (!util_parse_u32(val, vlen, 0, 1000, &v))
			return bad(err, errlen, "bad retrans in %s", kv);
		u->opts.retrans = (unsigned)v;
	} else {
		return bad(err, errlen, "unknown option %s", key);
	}
	return 0;
}

int nfsx_url_parse(const char *url, struct nfsx_url *u, char *err, size_t errlen)
{
	const char *p, *host, *hend, *path, *q;
	size_t hlen;
	uint32_t v;

	memset(u, 0, sizeof(*u));
	nfsx_opts_init(&u->opts);
	u->version = 3;
	if (!url || strncasecmp(url, "nfs://", 6) != 0)
		return bad(err, errlen, "%s: not an nfs:// URL", url ? url : "(null)");
	p = url + 6;
	if (*p == '[') {
		host = p + 1;
		hend = strchr(host, ']');
		if (!hend)
			return bad(err, errlen, "%s: unterminated [IPv6 address]", url);
		p = hend + 1;
	} else {
		host = p;
		hend = p + strcspn(p, ":/?");
		p = hend;
	}
	hlen = (size_t)(hend - host);
	if (hlen == 0 || hlen >= sizeof(u->host))
		return bad(err, errlen, "%s: bad host", url);
	if (memchr(host, '@', hlen) || memchr(host, '%', hlen))
		return bad(err, errlen, "%s: user names and escapes in the host are not supported", url);
	memcpy(u->host, host, hlen);
	u->host[hlen] = '\0';
	if (*p == ':') {
		size_t plen = strcspn(p + 1, "/?");

		if (!util_parse_u32(p + 1, plen, 1, 65535, &v))
			return bad(err, errlen, "%s: bad port", url);
		u->port = (uint16_t)v;
		p += 1 + plen;
	}
	if (*p != '/' && *p != '?' && *p != '\0')
		return bad(err, errlen, "%s: bad host", url);
	path = p;
	q = strchr(path, '?');
	if (decode_path(path, q ? (size_t)(q - path) : strlen(path), u->path,
			sizeof(u->path)) < 0)
		return bad(err, errlen, "%s: bad or too long path", url);
	if (!u->path[0])
		strcpy(u->path, "/");
	while (q && *q) {
		const char *kv = q + 1;
		size_t len = strcspn(kv, "&");
		int r;

		if (len == 0)
			return bad(err, errlen, "%s: empty option", url);
		r = option(u, kv, len, err, errlen);
		if (r < 0)
			return r;
		q = kv[len] ? kv + len : NULL;
	}
	u->opts.host = u->host;
	u->opts.port = u->port;
	return 0;
}
