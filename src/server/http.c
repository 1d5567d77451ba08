/* SPDX-License-Identifier: MIT */
/* The request line of an HTTP request: see http.h. */
#include "server/http.h"

#include <string.h>

/* Copy the @n bytes at @s into @dst of @cap bytes, cut to fit; a cut
 * value gets a final '\x01', which no method or path compared with has. */
static void put(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap) {
		memcpy(dst, s, cap - 2);
		dst[cap - 2] = '\x01';
		dst[cap - 1] = '\0';
		return;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

int http_parse_request(const char *buf, size_t len, struct http_req *r)
{
	const char *end = memchr(buf, '\n', len), *sp1, *sp2, *q;
	size_t line, i;

	if (!end)
		return -1;
	line = (size_t)(end - buf);
	if (line && buf[line - 1] == '\r')
		line--;
	sp1 = memchr(buf, ' ', line);
	if (!sp1 || sp1 == buf)
		return -1;
	sp2 = memchr(sp1 + 1, ' ', line - (size_t)(sp1 + 1 - buf));
	if (!sp2 || sp2 == sp1 + 1)
		return -1;
	/* the version: HTTP/1.x */
	if ((size_t)(buf + line - (sp2 + 1)) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0)
		return -1;
	for (i = 0; buf + i < sp1; i++)
		if (buf[i] < 'A' || buf[i] > 'Z')
			return -1;
	/* origin-form only (RFC 9112 3.2.1): the path's '/' first */
	if (sp1[1] != '/')
		return -1;
	for (q = sp1 + 1; q < sp2; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			return -1;
	put(r->method, sizeof(r->method), buf, (size_t)(sp1 - buf));
	q = memchr(sp1 + 1, '?', (size_t)(sp2 - sp1 - 1));
	put(r->path, sizeof(r->path), sp1 + 1, (size_t)((q ? q : sp2) - sp1 - 1));
	return 0;
}
