/* SPDX-License-Identifier: MIT */
/* nfs:// URL parsing (src/client/url.c): good URLs and bad ones. */
#include <errno.h>
#include <string.h>

#include "client/nfsx.h"
#include "tap.h"

static struct nfsx_url u;
static char err[256];

static int parse(const char *url)
{
	err[0] = '\0';
	return nfsx_url_parse(url, &u, err, sizeof(err));
}

int main(void)
{
	static const char *const bad[] = {
		NULL,
		"",
		"http://host/x",
		"nfs://",
		"nfs:///path",
		"nfs://host:/x",
		"nfs://host:0/x",
		"nfs://host:65536/x",
		"nfs://host:12ab/x",
		"nfs://host:-1/x",
		"nfs://[::1/x",
		"nfs://[]/x",
		"nfs://user@host/x",
		"nfs://host/x?nconnect=0",
		"nfs://host/x?nconnect=17",
		"nfs://host/x?version=2",
		"nfs://host/x?version=4.0",
		"nfs://host/x?version=41",
		"nfs://host/x?uid=4294967296",
		"nfs://host/x?uid=-1",
		"nfs://host/x?uid=",
		"nfs://host/x?uid",
		"nfs://host/x?timeo=0",
		"nfs://host/x?mountport=70000",
		"nfs://host/x?retrans=1x",
		"nfs://host/x?colour=blue",
		"nfs://host/x?uid=1&&gid=2",
		"nfs://host/x?",
		"nfs://host/a%2",
		"nfs://host/a%zz",
		"nfs://host/a%00b",
	};
	unsigned i;

	ok(parse("nfs://127.0.0.1/export/dir") == 0, "plain URL: %s", err);
	ok(!strcmp(u.host, "127.0.0.1") && u.port == 0 && !strcmp(u.path, "/export/dir") &&
	   u.version == 3, "host, no port, path, version 3");
	ok(u.opts.host == u.host && u.opts.port == 0 && u.opts.nconnect == 1 &&
	   u.opts.timeo_ms == 60000, "options are the defaults, host set");

	ok(parse("NFS://server.example:2049/srv/nfs?uid=1000&gid=100&nconnect=4&mountport=635&timeo=500&retrans=5&version=3") == 0,
	   "URL with every option: %s", err);
	ok(!strcmp(u.host, "server.example") && u.port == 2049 && u.opts.port == 2049,
	   "host name and port");
	ok(u.opts.uid == 1000 && u.opts.gid == 100 && u.opts.nconnect == 4 &&
	   u.opts.mount_port == 635 && u.opts.timeo_ms == 500 && u.opts.retrans == 5,
	   "uid, gid, nconnect, mountport, timeo, retrans applied");
	ok(!strcmp(u.path, "/srv/nfs"), "path stops at '?'");

	ok(parse("nfs://[::1]:20049/x%20y%2Fz") == 0 && !strcmp(u.host, "::1") &&
	   u.port == 20049 && !strcmp(u.path, "/x y/z"),
	   "[IPv6]:port and a percent-decoded path");
	ok(parse("nfs://host") == 0 && !strcmp(u.path, "/"), "no path means /");
	ok(parse("nfs://host?uid=0") == 0 && !strcmp(u.path, "/") && u.opts.uid == 0,
	   "options without a path");
	ok(parse("nfs://h:1/") == 0 && u.port == 1, "port 1");
	ok(parse("nfs://h/x?retrans=0") == 0 && u.opts.retrans == 0, "retrans=0 allowed");

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(bad[i]);

		ok(r == -EINVAL && err[0], "refused: %s (%s)", bad[i] ? bad[i] : "NULL", err);
	}
	{
		char longurl[5000];

		memset(longurl, 'a', sizeof(longurl));
		memcpy(longurl, "nfs://h/", 8);
		longurl[sizeof(longurl) - 1] = '\0';
		ok(parse(longurl) == -EINVAL, "a path longer than 4095 bytes is refused");
		memset(longurl, 'a', sizeof(longurl));
		memcpy(longurl, "nfs://", 6);
		longurl[300] = '/';
		longurl[301] = '\0';
		ok(parse(longurl) == -EINVAL, "a host longer than 255 bytes is refused");
	}
	ok(parse("nfs://h/x?version=4.1") == 0 && u.version == 4 && u.opts.version == 4 &&
	   u.opts.minor == 1, "version=4.1 is NFSv4.1: %s", err);
	ok(parse("nfs://h/x?version=4.2") == 0 && u.version == 4 && u.opts.version == 4 &&
	   u.opts.minor == 2, "version=4.2 is NFSv4.2: %s", err);
	ok(parse("nfs://h/x?version=4.2&version=4") == 0 && u.version == 4 &&
	   u.opts.version == 4 && u.opts.minor == 0,
	   "version=4 is the highest both speak (minor 0), the last one counting: %s", err);
	ok(parse("nfs://h/x") == 0 && u.opts.version == 3, "the default is NFSv3");
	return tap_done();
}
