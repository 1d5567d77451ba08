/* SPDX-License-Identifier: MIT */
/* The --metrics endpoint's request line (src/server/http.c). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "server/http.h"
#include "tap.h"

static int parse(const char *s, struct http_req *r)
{
	return http_parse_request(s, strlen(s), r);
}

int main(void)
{
	static const char *const bad[] = {
		"", "GET /metrics HTTP/1.1", "GET /metrics\r\n", "GET  /metrics HTTP/1.1\r\n",
		" GET /metrics HTTP/1.1\r\n", "get /metrics HTTP/1.1\r\n",
		"GET /metrics HTTP/2.0\r\n", "GET /met rics HTTP/1.1\r\n",
		"GET /metrics HTTP/1.1 x\r\n", "GET /me\ttrics HTTP/1.1\r\n",
		"HEAD ?x=1 HTTP/1.1\r\n", "GET metrics HTTP/1.1\r\n",
	};
	struct http_req r;
	char longpath[200];
	unsigned int i;
	bool all = true;

	ok(parse("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &r) == 0 &&
	   !strcmp(r.method, "GET") && !strcmp(r.path, "/metrics"), "GET /metrics");
	ok(parse("HEAD /metrics?x=1 HTTP/1.0\n\n", &r) == 0 && !strcmp(r.method, "HEAD") &&
	   !strcmp(r.path, "/metrics"), "HEAD, query dropped, bare LF");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &r) == 0) {
			printf("# taken: '%s'\n", bad[i]);
			all = false;
		}
	ok(all, "malformed request lines refused");
	memset(longpath, 'a', sizeof(longpath));
	memcpy(longpath, "GET /metrics", 12);
	memcpy(longpath + 150, " HTTP/1.1\r\n", 12);
	ok(parse(longpath, &r) == 0 && strlen(r.path) == sizeof(r.path) - 1 &&
	   strcmp(r.path, "/metrics") != 0, "a long path cut, never /metrics");
	ok(parse("VERYLONGMETHOD / HTTP/1.1\r\n", &r) == 0 && strcmp(r.method, "VERYLON") != 0 &&
	   strlen(r.method) == sizeof(r.method) - 1, "a long method cut, marked");
	return tap_done();
}
