/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the --metrics endpoint's HTTP request line
 * (src/server/http.c, compiled in). Whatever the bytes, the parser
 * reads none past the input (ASan), and what it accepts holds its
 * promises: a method of capital letters, a path without blanks, both
 * NUL-terminated within their fields, and the same answer twice.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly @size bytes: a read past it is ASan's */
	char *buf = malloc(size ? size : 1);
	struct http_req a, b;
	size_t i;
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	r = http_parse_request(buf, size, &a);
	if (r == 0) {
		if (!memchr(a.method, '\0', sizeof(a.method)) ||
		    !memchr(a.path, '\0', sizeof(a.path)))
			abort();
		for (i = 0; a.method[i]; i++)
			if ((a.method[i] < 'A' || a.method[i] > 'Z') && a.method[i] != '\x01')
				abort();
		for (i = 0; a.path[i]; i++)
			if ((unsigned char)a.path[i] <= ' ' && a.path[i] != '\x01')
				abort();
		if (!a.method[0] || !a.path[0])
			abort();
	}
	if (http_parse_request(buf, size, &b) != r ||
	    (r == 0 && (strcmp(a.method, b.method) || strcmp(a.path, b.path))))
		abort();
	free(buf);
	return 0;
}
