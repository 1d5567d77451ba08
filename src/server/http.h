/* SPDX-License-Identifier: MIT */
/*
 * The request line of an HTTP/1.x request, for the --metrics endpoint
 * (control.c): a parser of its own, small and strict, rather than a
 * library for one line (RFC 9112 3: method SP request-target SP
 * HTTP-version CRLF). Fuzzed (tests/fuzz, http-request).
 */
#ifndef NFSX_SERVER_HTTP_H
#define NFSX_SERVER_HTTP_H

#include <stddef.h>

struct http_req {
	char method[8];     /* "GET", "HEAD", ... */
	char path[64];      /* the target's path, its query dropped */
};

/*
 * http_parse_request - the request line at the start of the @len bytes
 * at @buf (the request's head, as read).
 * Return values: 0 with @r filled; -1 when the line is incomplete or not
 * a request line (the caller answers 400); a method or path longer than
 * @r holds is not one nfsxd serves and is cut to its room, so it never
 * matches one that is.
 */
int http_parse_request(const char *buf, size_t len, struct http_req *r);

#endif
