/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the exports configuration (src/export/exports*.c): the
 * exports(5) syntax, options and defaults, one error of each class with
 * its line number, peer matching, squashing, the secure-port check,
 * fsid and id rules, sec= flavours, the --export form, and the size
 * limits.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/exports.h"
#include "tap.h"

#define F "/etc/exports"

static char err[1024];

static struct nfsx_exports *parse(const char *text)
{
	err[0] = 0;
	return exports_parse_string(text, F, err, sizeof(err));
}

/* @text must be refused with exactly @want. */
static void fails(const char *text, const char *want, const char *what)
{
	struct nfsx_exports *ex = parse(text);

	ok(!ex && strcmp(err, want) == 0, "%s: got '%s'", what, err);
	exports_free(ex);
}

/* @text must be refused with a message starting with @prefix. */
static void fails_prefix(const char *text, const char *prefix, const char *what)
{
	struct nfsx_exports *ex = parse(text);

	ok(!ex && strncmp(err, prefix, strlen(prefix)) == 0, "%s: got '%s'",
	   what, err);
	exports_free(ex);
}

static const struct nfsx_export *first(const struct nfsx_exports *ex)
{
	return ex ? exports_next(ex, NULL) : NULL;
}

static struct sockaddr_storage addr(const char *text, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, text, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
	} else if (inet_pton(AF_INET6, text, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
	} else {
		abort();
	}
	return ss;
}

/* The spec of the rule @peer (and @host) falls under, or "-". */
static const char *who(const struct nfsx_export *e, const char *peer,
		       const char *host)
{
	struct sockaddr_storage ss;
	const struct nfsx_export_client *c;

	if (peer)
		ss = addr(peer, 700);
	c = exports_match(e, peer ? &ss : NULL, host);
	return c ? c->spec : "-";
}

static void test_syntax(void)
{
	struct nfsx_exports *ex;
	const struct nfsx_export *e;
	const struct nfsx_export_client *c;

	ex = parse("/srv/nfs host1(rw,no_root_squash) host2(ro) *.lan\n");
	e = first(ex);
	ok(ex && exports_count(ex) == 1, "one export");
	ok(e && strcmp(e->path, "/srv/nfs") == 0 && e->nclients == 3 &&
	   e->line == 1 && strcmp(e->source, F) == 0, "path, clients, origin");
	ok(e && e->clients[0].kind == NFSX_CLIENT_HOST &&
	   strcmp(e->clients[0].spec, "host1") == 0 &&
	   e->clients[0].opts.rw && !e->clients[0].opts.root_squash,
	   "host1(rw,no_root_squash)");
	ok(e && !e->clients[1].opts.rw && e->clients[1].opts.root_squash,
	   "host2(ro)");
	ok(e && e->clients[2].kind == NFSX_CLIENT_WILDCARD &&
	   !e->clients[2].opts.rw, "*.lan without options: defaults");
	ok(exports_warning_count(ex) == 0, "no warnings");
	exports_free(ex);

	/* -defaults apply to the clients that follow, theirs on top */
	ex = parse("/srv -rw,no_root_squash,anonuid=7 a b(ro) c(root_squash)\n");
	e = first(ex);
	ok(e && e->nclients == 3 && e->clients[0].opts.rw &&
	   !e->clients[0].opts.root_squash && e->clients[0].opts.anonuid == 7,
	   "default options alone");
	ok(e && !e->clients[1].opts.rw && !e->clients[1].opts.root_squash &&
	   e->clients[1].opts.anonuid == 7, "default options, then ro on top");
	ok(e && e->clients[2].opts.rw && e->clients[2].opts.root_squash,
	   "default options, then root_squash on top");
	exports_free(ex);

	/* every client form */
	ex = parse("/a * host.example.com *.example.com web?[0-9] 10.1.2.3 "
		   "10.0.0.0/8 192.168.1.0/255.255.255.0 fe80::1 2001:db8::/64 "
		   "::ffff:10.9.0.0/112 ::ffff:1.2.3.4 10.1.2.3/32 0.0.0.0/0\n");
	e = first(ex);
	ok(e && e->nclients == 13, "13 client forms: %s", err);
	if (e && e->nclients == 13) {
		static const enum nfsx_client_kind want[] = {
			NFSX_CLIENT_ANY, NFSX_CLIENT_HOST, NFSX_CLIENT_WILDCARD,
			NFSX_CLIENT_WILDCARD, NFSX_CLIENT_IPV4, NFSX_CLIENT_IPV4,
			NFSX_CLIENT_IPV4, NFSX_CLIENT_IPV6, NFSX_CLIENT_IPV6,
			NFSX_CLIENT_IPV4, NFSX_CLIENT_IPV4, NFSX_CLIENT_IPV4,
			NFSX_CLIENT_IPV4,
		};
		unsigned int i, good = 0;

		for (i = 0; i < 13; i++)
			good += e->clients[i].kind == want[i];
		ok(good == 13, "kinds of *, names, patterns, addresses, networks");
		c = &e->clients[5];
		ok(c->net.v4.addr == 0x0a000000 && c->net.v4.mask == 0xff000000,
		   "10.0.0.0/8");
		c = &e->clients[6];
		ok(c->net.v4.addr == 0xc0a80100 && c->net.v4.mask == 0xffffff00,
		   "netmask form is /24");
		c = &e->clients[8];
		ok(c->net.v6.prefix == 64 && c->net.v6.addr[0] == 0x20 &&
		   c->net.v6.addr[1] == 0x01, "2001:db8::/64");
		c = &e->clients[9];
		ok(c->net.v4.addr == 0x0a090000 && c->net.v4.mask == 0xffff0000,
		   "::ffff:10.9.0.0/112 is the IPv4 rule 10.9.0.0/16");
		c = &e->clients[10];
		ok(c->net.v4.addr == 0x01020304 && c->net.v4.mask == 0xffffffff,
		   "::ffff:1.2.3.4 is the IPv4 address");
		ok(strcmp(e->clients[9].spec, "::ffff:10.9.0.0/112") == 0,
		   "the spec stays as written");
		ok(e->clients[12].net.v4.mask == 0, "0.0.0.0/0");
	}
	exports_free(ex);

	/* host bits of a network are cleared */
	ex = parse("/a 10.1.2.3/8 2001:db8::1:2/112\n");
	e = first(ex);
	ok(e && e->clients[0].net.v4.addr == 0x0a000000 &&
	   e->clients[1].net.v6.addr[14] == 0 && e->clients[1].net.v6.addr[15] == 0 &&
	   e->clients[1].net.v6.addr[13] == 1, "host bits cleared");
	exports_free(ex);

	/* comments, blank lines, CRLF, tabs */
	ex = parse("# exports\n\n   \t\n/a\t*(rw)   # trailing comment\r\n"
		   "  # indented comment\n/b/c#d *\n");
	ok(ex && exports_count(ex) == 2, "comments and blank lines: %s", err);
	e = ex ? exports_find_path(ex, "/a") : NULL;
	ok(e && e->line == 4 && e->nclients == 1 && e->clients[0].opts.rw,
	   "CRLF and trailing comment");
	ok(ex && exports_find_path(ex, "/b/c#d"), "# inside a word is not a comment");
	exports_free(ex);

	/* continuation lines */
	ex = parse("/a \\\n   host1(rw) \\  \n\thost2\n/b *\n");
	e = first(ex);
	ok(ex && exports_count(ex) == 2 && e->nclients == 2 &&
	   e->clients[1].line == 3 && exports_next(ex, e)->line == 4,
	   "backslash joins lines; line numbers kept: %s", err);
	exports_free(ex);
	fails("/a \\\n host1(rw) \\\n host2(rw2)\n",
	      F ":3: unknown option \"rw2\"",
	      "error on a continuation line names that line");
	ex = parse("# comment \\\n/a *\n/b *\n");
	ok(ex && exports_count(ex) == 1, "a comment is continued too, as in C");
	exports_free(ex);
	ex = parse("/a *\\");
	ok(ex && exports_count(ex) == 1, "backslash at end of input");
	exports_free(ex);

	/* quoting and escapes */
	ex = parse("\"/srv/my files\" *(rw)\n/srv/other\\040dir *\n"
		   "/srv/back\\slash *\n\"/srv/q\"uo\"ted\" *\n");
	ok(ex && exports_find_path(ex, "/srv/my files") &&
	   exports_find_path(ex, "/srv/other dir") &&
	   exports_find_path(ex, "/srv/back\\slash") &&
	   exports_find_path(ex, "/srv/quoted"), "quoted paths, \\040: %s", err);
	exports_free(ex);

	/* no client list: everyone, with a warning */
	ex = parse("/pub\n/pub2 -rw\n");
	e = first(ex);
	ok(e && e->nclients == 1 && e->clients[0].kind == NFSX_CLIENT_ANY &&
	   !e->clients[0].opts.rw, "no client list: * with defaults");
	e = e ? exports_next(ex, e) : NULL;
	ok(e && e->nclients == 1 && e->clients[0].opts.rw,
	   "no client list after -rw: *(rw)");
	ok(ex && exports_warning_count(ex) == 2 &&
	   strcmp(exports_warning(ex, 0),
		  F ":1: \"/pub\" has no client list: exported to everyone (*)") == 0,
	   "the warning says so: '%s'", ex ? exports_warning(ex, 0) : "");
	ok(ex && !exports_warning(ex, 2), "warning index out of range");
	exports_free(ex);

	/* paths are normalised */
	ex = parse("/srv//nfs/./ *\n/ *\n");
	ok(ex && exports_find_path(ex, "/srv/nfs") && exports_find_path(ex, "/"),
	   "// . and trailing / go");
	ok(ex && exports_find_path(ex, "/srv/nfs/") &&
	   exports_find_path(ex, "//srv/./nfs") &&
	   !exports_find_path(ex, "/srv/nfs/sub") &&
	   !exports_find_path(ex, "/srv") && !exports_find_path(ex, "srv/nfs") &&
	   !exports_find_path(ex, "/srv/nfs/.."),
	   "find_path: normalised, exact, no prefix");
	exports_free(ex);

	ex = parse("");
	ok(ex && exports_count(ex) == 0 && !exports_next(ex, NULL), "empty text");
	exports_free(ex);
}

static void test_options(void)
{
	struct nfsx_exports *ex;
	const struct nfsx_export_opts *o;
	const struct nfsx_export *e;

	ex = parse("/a host\n");
	e = first(ex);
	o = e ? &e->clients[0].opts : NULL;
	ok(o && !o->rw && !o->async && o->root_squash && !o->all_squash &&
	   o->secure && !o->subtree_check && o->wdelay && !o->nohide &&
	   !o->crossmnt && !o->insecure_locks && o->anonuid == 65534 &&
	   o->anongid == 65534 && e->fsid_kind == NFSX_FSID_NONE,
	   "defaults: ro sync root_squash secure no_subtree_check wdelay hide anon 65534");
	exports_free(ex);

	ex = parse("/a h(rw,async,no_root_squash,all_squash,insecure,subtree_check,"
		   "no_wdelay,nohide,crossmnt,anonuid=1000,anongid=1001,sec=sys)\n");
	e = first(ex);
	o = e ? &e->clients[0].opts : NULL;
	ok(o && o->rw && o->async && !o->root_squash && o->all_squash &&
	   !o->secure && o->subtree_check && !o->wdelay && o->nohide &&
	   o->crossmnt && o->anonuid == 1000 && o->anongid == 1001,
	   "every option set: %s", err);
	exports_free(ex);

	ex = parse("/a -rw,async,no_root_squash,all_squash,insecure,subtree_check,"
		   "no_wdelay,nohide h(ro,sync,root_squash,no_all_squash,secure,"
		   "no_subtree_check,wdelay,hide)\n");
	e = first(ex);
	o = e ? &e->clients[0].opts : NULL;
	ok(o && !o->rw && !o->async && o->root_squash && !o->all_squash &&
	   o->secure && !o->subtree_check && o->wdelay && !o->nohide,
	   "every option's opposite: %s", err);
	exports_free(ex);

	ex = parse("/a h(rw,ro) i(ro,rw) j()\n");
	e = first(ex);
	ok(e && !e->clients[0].opts.rw && e->clients[1].opts.rw &&
	   !e->clients[2].opts.rw, "the later option wins; () is the defaults");
	exports_free(ex);

	ex = parse("/a h(insecure_locks) i(secure_locks,no_auth_nlm,auth_nlm)\n");
	e = first(ex);
	ok(e && e->clients[0].opts.insecure_locks && !e->clients[1].opts.insecure_locks,
	   "insecure_locks / secure_locks and their old names recorded");
	ok(ex && exports_warning_count(ex) == 4 &&
	   strcmp(exports_warning(ex, 0),
		  F ":1: option \"insecure_locks\" is accepted but has no effect") == 0,
	   "... with a note each: '%s'", ex ? exports_warning(ex, 0) : "");
	exports_free(ex);

	/* async and wdelay are taken (Linux exports files carry them) but
	 * nfsxd writes as sync, no_wdelay: each is a warning. */
	ex = parse("/a h(rw,async) i(wdelay,sync) j(no_wdelay,sync)\n");
	e = first(ex);
	ok(e && e->clients[0].opts.async && e->clients[1].opts.wdelay &&
	   !e->clients[2].opts.wdelay && !e->clients[2].opts.async,
	   "async, wdelay, sync, no_wdelay recorded");
	ok(ex && exports_warning_count(ex) == 2 &&
	   strcmp(exports_warning(ex, 0),
		  F ":1: option \"async\" is accepted but has no effect") == 0 &&
	   strcmp(exports_warning(ex, 1),
		  F ":1: option \"wdelay\" is accepted but has no effect") == 0,
	   "async and wdelay warn, sync and no_wdelay do not: '%s' '%s'",
	   ex && exports_warning(ex, 0) ? exports_warning(ex, 0) : "",
	   ex && exports_warning(ex, 1) ? exports_warning(ex, 1) : "");
	exports_free(ex);

	ex = parse("/a h(anonuid=0,anongid=4294967294)\n");
	e = first(ex);
	ok(e && e->clients[0].opts.anonuid == 0 &&
	   e->clients[0].opts.anongid == 4294967294u, "anonuid/anongid range ends");
	exports_free(ex);

	/* fsid forms */
	ex = parse("/a *(fsid=0)\n/b *(fsid=root)\n");
	ok(!ex && strcmp(err, F ":2: fsid=0 of \"/b\" is already used by \"/a\" (" F ":1)") == 0,
	   "fsid=root is fsid=0: '%s'", err);
	exports_free(ex);
	ex = parse("/a *(fsid=root)\n/b *(fsid=4294967295)\n/c -fsid=42 *\n"
		   "/d *(fsid=0123456789abcdef0123456789ABCDEF)\n"
		   "/e *(fsid=01234567-89ab-cdef-0123-456789abcdee)\n"
		   "/f *(fsid=12345678901234567890123456789012)\n");
	ok(ex && exports_count(ex) == 6, "fsid forms parse: %s", err);
	if (ex && exports_count(ex) == 6) {
		const struct nfsx_export *a = exports_find_path(ex, "/a");
		const struct nfsx_export *b = exports_find_path(ex, "/b");
		const struct nfsx_export *c = exports_find_path(ex, "/c");
		const struct nfsx_export *d = exports_find_path(ex, "/d");
		const struct nfsx_export *ee = exports_find_path(ex, "/e");
		const struct nfsx_export *f = exports_find_path(ex, "/f");

		ok(a->fsid_kind == NFSX_FSID_NUM && a->fsid == 0 && a->id == 0,
		   "fsid=root: number 0, id 0");
		ok(b->fsid == 4294967295u && b->id == 4294967295u, "fsid=4294967295");
		ok(c->fsid_kind == NFSX_FSID_NUM && c->fsid == 42 && c->id == 42,
		   "fsid in the default options");
		ok(d->fsid_kind == NFSX_FSID_UUID && d->uuid[0] == 0x01 &&
		   d->uuid[15] == 0xef, "UUID, mixed case");
		ok(ee->fsid_kind == NFSX_FSID_UUID && ee->uuid[15] == 0xee,
		   "UUID with dashes");
		ok(d->id == (0x80000000u | (0x01234567u ^ 0x89abcdefu ^ 0x01234567u ^ 0x89abcdefu)),
		   "UUID id: words XORed, top bit set (%#x)", d->id);
		ok(f->fsid_kind == NFSX_FSID_UUID && f->uuid[0] == 0x12,
		   "32 decimal digits are a UUID, not a number");
		ok(exports_find_id(ex, 42) == c && exports_find_id(ex, d->id) == d &&
		   !exports_find_id(ex, 7), "find_id");
	}
	exports_free(ex);
	ex = parse("/a h(fsid=5) i(fsid=5)\n");
	ok(ex && first(ex)->fsid == 5, "the same fsid on every client is fine");
	exports_free(ex);
}

static void test_errors(void)
{
	char line[8192];
	struct nfsx_exports *ex;
	size_t i;
	char *big;
	int n;

	fails("# header\n/a *(rw)\n/b *(rw2)\n", F ":3: unknown option \"rw2\"",
	      "unknown option");
	fails("/a h(rw=foo)\n", F ":1: unknown option \"rw=foo\"",
	      "a flag with a value");
	fails("\n/a *(anonuid=abc)\n",
	      F ":2: bad number in \"anonuid=abc\": give 0 to 4294967294",
	      "bad number");
	fails("/a *(anongid=-2)\n",
	      F ":1: bad number in \"anongid=-2\": give 0 to 4294967294",
	      "negative number");
	fails("/a *(anonuid=4294967295)\n",
	      F ":1: bad number in \"anonuid=4294967295\": give 0 to 4294967294",
	      "(uid_t)-1 refused");
	fails("/a *(anonuid=)\n",
	      F ":1: bad number in \"anonuid=\": give 0 to 4294967294",
	      "empty number");
	fails("/a *(anonuid=12345678901)\n",
	      F ":1: bad number in \"anonuid=12345678901\": give 0 to 4294967294",
	      "number too long");
	fails("/a *(fsid=4294967296)\n",
	      F ":1: bad fsid \"fsid=4294967296\": give 0, root, a number up to 4294967295 or a UUID of 32 hex digits",
	      "fsid too large");
	fails_prefix("/a *(fsid=0x10)\n", F ":1: bad fsid \"fsid=0x10\"", "fsid in hex");
	fails_prefix("/a *(fsid=0123456789abcdef0123456789abcde)\n",
		     F ":1: bad fsid", "UUID of 31 digits");
	fails_prefix("/a *(fsid=0123456789abcdef0123456789abcdef0)\n",
		     F ":1: bad fsid", "UUID of 33 digits");
	fails_prefix("/a *(fsid=)\n", F ":1: bad fsid", "empty fsid");
	fails("/a -fsid=1 h(fsid=2)\n",
	      F ":1: conflicting \"fsid=2\": this export has another fsid already",
	      "two fsids for one export");
	fails("/a *(rw,,sync)\n",
	      F ":1: empty option in \"rw,,sync\" (a stray comma?)", "empty option");
	fails("/a *(rw,)\n", F ":1: empty option in \"rw,\" (a stray comma?)",
	      "trailing comma");
	fails("/a host (rw)\n",
	      F ":1: no client before \"(rw)\" (write \"*(rw)\" to export to everyone)",
	      "empty client");
	fails("srv *\n", F ":1: path \"srv\" is not an absolute path",
	      "relative path");
	fails("\n\n/a/../etc *\n",
	      F ":3: path \"/a/../etc\" contains \"..\" (symbolic links are not resolved: write the real path)",
	      "..");
	fails("\"/a\nb\" *\n", F ":1: unterminated quote", "quote ends with the line");
	fails("/a \\\n \"host *\n", F ":2: unterminated quote",
	      "unterminated quote on a continuation line");
	fails("/a\\000b *\n", F ":1: bad escape \"\\000\" in the path", "\\000");
	fails("/a\\001b *\n", F ":1: path \"/a?b\" contains a control character",
	      "control byte (and the message shows none)");
	fails("/a *\n/b *\n/a/ h\n",
	      F ":3: \"/a\" is already exported (" F ":1); give all its clients on one line",
	      "duplicate path");
	fails("/a *(fsid=3)\n/b\n/c h(fsid=3)\n",
	      F ":3: fsid=3 of \"/c\" is already used by \"/a\" (" F ":1)",
	      "same fsid");
	fails("/a *(fsid=01234567-89ab-cdef-0123-456789abcdef)\n"
	      "/b *(fsid=0123456789ABCDEF0123456789abcdef)\n",
	      F ":2: fsid=0123456789abcdef0123456789abcdef of \"/b\" is already used by \"/a\" (" F ":1)",
	      "same UUID written differently");
	fails("/a @trusted(rw)\n",
	      F ":1: netgroup \"@trusted\" is not supported: list the hosts or networks instead",
	      "netgroup");
	fails("/a 10.0.0.256\n", F ":1: bad IPv4 address \"10.0.0.256\"", "bad IPv4");
	fails("/a 10.1\n", F ":1: bad IPv4 address \"10.1\"", "short IPv4");
	fails("/a fe80::1::2\n", F ":1: bad IPv6 address \"fe80::1::2\"", "bad IPv6");
	fails("/a 10.0.0.0/33\n",
	      F ":1: bad network \"10.0.0.0/33\": give a.b.c.d/len, a.b.c.d/netmask or ipv6/len",
	      "prefix too long");
	fails_prefix("/a ::/129\n", F ":1: bad network \"::/129\"", "IPv6 prefix too long");
	fails_prefix("/a 10.0.0.0/\n", F ":1: bad network", "empty prefix");
	fails_prefix("/a host/24\n", F ":1: bad network \"host/24\"", "name/len");
	fails("/a 10.0.0.0/255.0.255.0\n",
	      F ":1: netmask in \"10.0.0.0/255.0.255.0\" is not contiguous",
	      "non-contiguous netmask");
	fails("/a ho$t\n",
	      F ":1: bad client \"ho$t\": not a host name, pattern, address or network",
	      "bad host character");
	fails_prefix("/a web[0-9\n", F ":1: bad client \"web[0-9\"", "unclosed [");
	fails_prefix("/a web[]\n", F ":1: bad client", "empty []");
	fails("/a host(rw\n",
	      F ":1: bad parentheses in \"host(rw\" (a blank inside the option list?)",
	      "missing )");
	fails_prefix("/a host(rw)(ro)\n", F ":1: bad parentheses", "two lists");
	fails_prefix("/a host)\n", F ":1: bad parentheses", "stray )");
	fails("/a h -rw\n", F ":1: default options \"-rw\" must come right after the path",
	      "default options after a client");
	fails("/a -rw2 h\n", F ":1: unknown option \"rw2\"",
	      "unknown option in the default options");
	fails("/a -fsid=0123456789abcdef0123456789abcdef h(fsid=0123456789abcdef0123456789abcdee)\n",
	      F ":1: conflicting \"fsid=0123456789abcdef0123456789abcdee\": this export has another fsid already",
	      "two UUIDs for one export");
	fails("/a -fsid=1 h(fsid=00000000000000000000000000000001)\n",
	      F ":1: conflicting \"fsid=00000000000000000000000000000001\": this export has another fsid already",
	      "a number and a UUID for one export");
	fails("\"/a \\\nb\" *\n", F ":1: path \"/a ?b\" contains a control character",
	      "a continuation inside a quoted path");
	fails_prefix("/a 1111111111111111111111111111111111111111111111111111111111111111/8\n",
		     F ":1: bad network", "address part too long");

	/* a host name of 256 characters */
	memset(line, 'a', sizeof(line));
	memcpy(line, "/a ", 3);
	memcpy(line + 3 + 256, "\n", 2);
	fails_prefix(line, F ":1: bad client", "host name longer than 255");
	line[3 + 255] = '\n';
	line[3 + 256] = 0;
	ex = parse(line);
	ok(ex != NULL, "host name of 255");
	exports_free(ex);

	/* a path of PATH_MAX */
	memset(line, 'p', sizeof(line));
	line[0] = '/';
	memcpy(line + 4096, " *\n", 4);
	fails_prefix(line, F ":1: path \"/ppp", "path of 4096 bytes");
	ok(strstr(err, "is too long") != NULL, "... is too long");
	memcpy(line + 4095, " *\n", 4);
	ex = parse(line);
	ok(ex != NULL, "path of 4095 bytes");
	exports_free(ex);

	/* 256 clients, then 257 */
	big = malloc(EXPORTS_MAX_LINE + 3);
	n = snprintf(big, 64, "/a");
	for (i = 0; i < 256; i++)
		n += snprintf(big + n, 64, " 10.0.%zu.%zu", i / 256, i % 256);
	ex = parse(big);
	ok(ex && first(ex)->nclients == 256, "256 clients");
	exports_free(ex);
	snprintf(big + n, 64, " 10.1.0.0/16");
	fails(big, F ":1: too many clients for \"/a\" (at most 256)", "257 clients");

	/* lines of 64 KiB and 64 KiB + 1 */
	memset(big, ' ', EXPORTS_MAX_LINE + 1);
	memcpy(big, "/a * #", 6);
	big[EXPORTS_MAX_LINE] = '\n';
	big[EXPORTS_MAX_LINE + 1] = 0;
	ex = parse(big);
	ok(ex && exports_count(ex) == 1, "a line of 65536 bytes: %s", err);
	exports_free(ex);
	big[EXPORTS_MAX_LINE] = 'x';
	fails(big, F ":1: line longer than 65536 bytes", "a line of 65537 bytes");
	big[EXPORTS_MAX_LINE] = 0;
	memcpy(big + EXPORTS_MAX_LINE / 2, "\\\n", 2);
	ex = parse(big);
	ok(ex && exports_count(ex) == 1, "a logical line of 65536 bytes");
	exports_free(ex);
	big[EXPORTS_MAX_LINE] = 'x';
	big[EXPORTS_MAX_LINE + 1] = 0;
	ex = parse(big);
	ok(ex != NULL, "the backslash counts, its newline does not");
	exports_free(ex);
	big[EXPORTS_MAX_LINE + 1] = 'y';
	big[EXPORTS_MAX_LINE + 2] = 0;
	fails(big, F ":2: line longer than 65536 bytes",
	      "joined lines longer than 65536 bytes");
	free(big);
}

static void test_matching(void)
{
	struct nfsx_exports *ex;
	const struct nfsx_export *e;

	ex = parse("/a 10.1.2.3(rw) 10.1.0.0/16 10.0.0.0/8 "
		   "172.16.0.0/255.240.0.0 2001:db8::1 2001:db8::/64 "
		   "*.Example.COM web[0-3]?.lan host.lan\n/b 0.0.0.0/0\n/c *\n"
		   "/d ::/0\n/e ::ffff:192.168.0.0/120\n");
	e = ex ? exports_find_path(ex, "/a") : NULL;
	ok(e != NULL, "matching set parses: %s", err);
	if (!e)
		return;
	ok(strcmp(who(e, "10.1.2.3", NULL), "10.1.2.3") == 0 &&
	   exports_match(e, &(struct sockaddr_storage){ 0 }, NULL) == NULL,
	   "exact IPv4 (spec without options)");
	ok(exports_match(e, NULL, NULL) == NULL, "no address, no name: no match");
	ok(strcmp(who(e, "10.1.9.9", NULL), "10.1.0.0/16") == 0, "/16");
	ok(strcmp(who(e, "10.200.0.1", NULL), "10.0.0.0/8") == 0, "/8");
	ok(strcmp(who(e, "11.0.0.1", NULL), "-") == 0, "outside every rule");
	ok(strcmp(who(e, "172.31.255.255", NULL), "172.16.0.0/255.240.0.0") == 0 &&
	   strcmp(who(e, "172.32.0.0", NULL), "-") == 0, "netmask form /12");
	ok(strcmp(who(e, "::ffff:10.1.2.3", NULL), "10.1.2.3") == 0 &&
	   strcmp(who(e, "::ffff:10.7.0.1", NULL), "10.0.0.0/8") == 0,
	   "IPv4-mapped peers match IPv4 rules");
	ok(strcmp(who(e, "2001:db8::1", NULL), "2001:db8::1") == 0, "exact IPv6");
	ok(strcmp(who(e, "2001:db8::ffff:1", NULL), "2001:db8::/64") == 0 &&
	   strcmp(who(e, "2001:db8:0:1::1", NULL), "-") == 0, "IPv6 /64");
	ok(strcmp(who(e, "192.0.2.1", "Server.example.com"), "*.Example.COM") == 0 &&
	   strcmp(who(e, "192.0.2.1", "a.b.example.com"), "*.Example.COM") == 0 &&
	   strcmp(who(e, "192.0.2.1", "example.com"), "-") == 0,
	   "wildcard host names, case-insensitive, * spans dots");
	ok(strcmp(who(e, "192.0.2.1", "web2x.lan"), "web[0-3]?.lan") == 0 &&
	   strcmp(who(e, "192.0.2.1", "web4x.lan"), "-") == 0 &&
	   strcmp(who(e, "192.0.2.1", "web2.lan"), "-") == 0,
	   "[0-3] and ? in patterns");
	ok(strcmp(who(e, "192.0.2.1", "HOST.lan"), "host.lan") == 0 &&
	   strcmp(who(e, "192.0.2.1", "host.lan.evil"), "-") == 0 &&
	   strcmp(who(e, "192.0.2.1", NULL), "-") == 0,
	   "exact host names: case-insensitive, whole name, not without a name");
	ok(strcmp(who(e, "10.1.2.3", "host.lan"), "10.1.2.3") == 0,
	   "first match wins (address before name)");

	e = exports_find_path(ex, "/b");
	ok(strcmp(who(e, "1.2.3.4", NULL), "0.0.0.0/0") == 0 &&
	   strcmp(who(e, "::ffff:1.2.3.4", NULL), "0.0.0.0/0") == 0 &&
	   strcmp(who(e, "2001:db8::5", NULL), "-") == 0,
	   "/0 IPv4: every IPv4 peer, no IPv6 one");
	e = exports_find_path(ex, "/c");
	ok(strcmp(who(e, "2001:db8::5", NULL), "*") == 0 &&
	   exports_match(e, NULL, NULL) == &e->clients[0], "* matches anyone");
	e = exports_find_path(ex, "/d");
	ok(strcmp(who(e, "2001:db8::5", NULL), "::/0") == 0 &&
	   strcmp(who(e, "1.2.3.4", NULL), "-") == 0 &&
	   strcmp(who(e, "::ffff:1.2.3.4", NULL), "-") == 0,
	   "::/0: IPv6 peers only, mapped IPv4 ones are IPv4");
	e = exports_find_path(ex, "/e");
	ok(strcmp(who(e, "192.168.0.77", NULL), "::ffff:192.168.0.0/120") == 0 &&
	   strcmp(who(e, "192.168.1.1", NULL), "-") == 0,
	   "a mapped IPv6 network matches plain IPv4 peers");
	exports_free(ex);

	ex = parse("/a 2001:db8:0:10::/60 2001:db8::2/127 h(rw) H(ro)\n");
	e = first(ex);
	ok(e && strcmp(who(e, "2001:db8:0:1f::9", NULL), "2001:db8:0:10::/60") == 0 &&
	   strcmp(who(e, "2001:db8:0:20::9", NULL), "-") == 0, "IPv6 /60");
	ok(e && strcmp(who(e, "2001:db8::3", NULL), "2001:db8::2/127") == 0 &&
	   strcmp(who(e, "2001:db8::4", NULL), "-") == 0, "IPv6 /127");
	ok(ex && exports_warning_count(ex) == 1 &&
	   strcmp(exports_warning(ex, 0),
		  F ":1: client \"H\" is listed twice for \"/a\": the first one wins") == 0,
	   "a client listed twice: warning '%s'",
	   ex && exports_warning(ex, 0) ? exports_warning(ex, 0) : "");
	ok(e && strcmp(who(e, "10.0.0.1", "h"), "h") == 0 &&
	   e->clients[2].opts.rw, "... and the first one wins");
	exports_free(ex);

	/* first match wins, in the order written */
	ex = parse("/a 10.0.0.0/8(ro) 10.1.2.3(rw)\n/b 10.1.2.3(rw) 10.0.0.0/8(ro)\n"
		   "/c *(ro) host(rw)\n");
	e = ex ? exports_find_path(ex, "/a") : NULL;
	ok(e && !exports_match(e, &(struct sockaddr_storage){ 0 }, NULL),
	   "unknown family matches no address rule");
	ok(e && strcmp(who(e, "10.1.2.3", NULL), "10.0.0.0/8") == 0,
	   "broader rule first: it wins");
	e = ex ? exports_find_path(ex, "/b") : NULL;
	ok(e && strcmp(who(e, "10.1.2.3", NULL), "10.1.2.3") == 0 &&
	   strcmp(who(e, "10.1.2.4", NULL), "10.0.0.0/8") == 0,
	   "specific rule first");
	e = ex ? exports_find_path(ex, "/c") : NULL;
	ok(e && strcmp(who(e, "10.1.2.3", "host"), "*") == 0, "* first shadows the rest");
	exports_free(ex);

	/* pattern corner cases */
	ex = parse("/a *a*b*c* [!x]y ?? web[a-c-] a*\n");
	e = first(ex);
	ok(e != NULL, "patterns parse: %s", err);
	if (e) {
		ok(strcmp(who(e, NULL, "xxaxxbxxcxx"), "*a*b*c*") == 0 &&
		   strcmp(who(e, NULL, "abc"), "*a*b*c*") == 0, "several stars");
		ok(strcmp(who(e, NULL, "zy"), "[!x]y") == 0 &&
		   strcmp(who(e, NULL, "Xy"), "??") == 0, "negated class, case-folded");
		ok(strcmp(who(e, NULL, "webB"), "web[a-c-]") == 0 &&
		   strcmp(who(e, NULL, "web-"), "web[a-c-]") == 0 &&
		   strcmp(who(e, NULL, "webd"), "-") == 0, "range and literal -");
		ok(strcmp(who(e, NULL, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"), "a*") == 0,
		   "long name against a*");
	}
	exports_free(ex);
	ex = parse("/a *a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n");
	e = first(ex);
	{
		char name[1024];

		memset(name, 'a', sizeof(name) - 1);
		name[sizeof(name) - 1] = 0;
		ok(e && strcmp(who(e, NULL, name), "-") == 0,
		   "pathological pattern ends (no backtracking blow-up)");
	}
	exports_free(ex);
}

static void test_squash(void)
{
	struct nfsx_exports *ex;
	const struct nfsx_export *e;
	uint32_t uid, gid, gids[4], ng;

	ex = parse("/a rs(rw) nrs(no_root_squash) all(all_squash) "
		   "anon(anonuid=1000,anongid=1001) allanon(all_squash,anonuid=5,anongid=6)\n");
	e = first(ex);
	ok(e && e->nclients == 5, "squash set parses: %s", err);
	if (!e)
		return;

	uid = 0, gid = 0, ng = 4;
	gids[0] = 0, gids[1] = 10, gids[2] = 0, gids[3] = 20;
	exports_squash(&e->clients[0], &uid, &gid, gids, &ng);
	ok(uid == 65534 && gid == 65534, "root_squash: uid 0, gid 0 -> 65534");
	ok(ng == 4 && gids[0] == 65534 && gids[1] == 10 && gids[2] == 65534 &&
	   gids[3] == 20, "root_squash: gid 0 in the groups mapped, others kept");

	uid = 1000, gid = 0, ng = 1, gids[0] = 0;
	exports_squash(&e->clients[0], &uid, &gid, gids, &ng);
	ok(uid == 1000 && gid == 65534 && gids[0] == 65534,
	   "root_squash: a user with gid 0 loses it too");
	uid = 1000, gid = 100, ng = 1, gids[0] = 5;
	exports_squash(&e->clients[0], &uid, &gid, gids, &ng);
	ok(uid == 1000 && gid == 100 && ng == 1 && gids[0] == 5,
	   "root_squash: other users unchanged");

	uid = 0, gid = 0, ng = 2, gids[0] = 0, gids[1] = 3;
	exports_squash(&e->clients[1], &uid, &gid, gids, &ng);
	ok(uid == 0 && gid == 0 && ng == 2 && gids[0] == 0, "no_root_squash keeps root");

	uid = 1000, gid = 100, ng = 3;
	exports_squash(&e->clients[2], &uid, &gid, gids, &ng);
	ok(uid == 65534 && gid == 65534 && ng == 0, "all_squash: anon, groups cleared");

	uid = 0, gid = 0, ng = 1, gids[0] = 0;
	exports_squash(&e->clients[3], &uid, &gid, gids, &ng);
	ok(uid == 1000 && gid == 1001 && gids[0] == 1001, "anonuid/anongid used");

	uid = 7, gid = 8;
	exports_squash(&e->clients[4], &uid, &gid, NULL, NULL);
	ok(uid == 5 && gid == 6, "all_squash with anonuid, no group list");

	uid = UINT32_MAX, gid = UINT32_MAX, ng = 0;
	exports_squash(&e->clients[1], &uid, &gid, gids, &ng);
	ok(uid == 65534 && gid == 65534, "uid/gid -1 become anon even without squashing");
	exports_free(ex);
}

static void test_port(void)
{
	struct nfsx_exports *ex = parse("/a s(secure) i(insecure) d\n");
	const struct nfsx_export *e = first(ex);
	struct sockaddr_storage p;

	ok(e && e->nclients == 3, "port set parses");
	if (!e)
		return;
	p = addr("10.0.0.1", 1023);
	ok(exports_port_ok(&e->clients[0], &p), "secure: port 1023 ok");
	p = addr("10.0.0.1", 1024);
	ok(!exports_port_ok(&e->clients[0], &p), "secure: port 1024 refused");
	ok(!exports_port_ok(&e->clients[2], &p), "secure is the default");
	ok(exports_port_ok(&e->clients[1], &p), "insecure: port 1024 ok");
	p = addr("2001:db8::1", 800);
	ok(exports_port_ok(&e->clients[0], &p), "secure: IPv6 port 800 ok");
	p = addr("2001:db8::1", 40000);
	ok(!exports_port_ok(&e->clients[0], &p), "secure: IPv6 port 40000 refused");
	ok(!exports_port_ok(&e->clients[0], NULL) &&
	   exports_port_ok(&e->clients[1], NULL), "no address: only insecure");
	exports_free(ex);
}

/* FNV-1a, written again here so that a change to the id is noticed. */
static uint32_t path_id(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return 0x80000000u | (h & 0x7fffffffu);
}

static void test_ids(void)
{
	struct nfsx_exports *ex;
	const struct nfsx_export *e;
	char text[128];

	ex = parse("/srv/nfs *\n/srv/other *(fsid=9)\n");
	e = first(ex);
	ok(e && e->id == path_id("/srv/nfs"), "id from the path: %#x",
	   e ? e->id : 0);
	ok(e && exports_next(ex, e)->id == 9, "id from fsid");
	exports_free(ex);
	ex = parse("/srv/nfs/ h\n");
	ok(ex && first(ex)->id == path_id("/srv/nfs"),
	   "same id for the same path, however written");
	exports_free(ex);

	/* an fsid equal to another export's derived id */
	snprintf(text, sizeof(text), "/srv/nfs *\n/x *(fsid=%u)\n", path_id("/srv/nfs"));
	ex = parse(text);
	ok(!ex && strstr(err, F ":2: \"/x\" would have the same id") == err &&
	   strstr(err, "give one of them an fsid= option"),
	   "id collision refused: '%s'", err);
	exports_free(ex);
}

/* sec=: the flavour list of each rule, what it allows and lists. */
static void test_sec(void)
{
	struct nfsx_exports *ex;
	const struct nfsx_export *e;
	const struct nfsx_export_client *c;
	uint32_t l[EXPORTS_MAX_SEC];
	unsigned int n;

	ex = parse("/a h\n");
	e = first(ex);
	c = e ? &e->clients[0] : NULL;
	n = c ? exports_sec_list(c, l) : 0;
	ok(c && c->opts.nsec == 0 && exports_sec_allows(c, EXPORTS_SEC_SYS) &&
	   exports_sec_allows(c, EXPORTS_SEC_NONE) && !exports_sec_allows(c, 390003u) &&
	   n == 2 && l[0] == EXPORTS_SEC_SYS && l[1] == EXPORTS_SEC_NONE,
	   "no sec=: AUTH_SYS and AUTH_NONE allowed, listed sys, none (knfsd)");
	exports_free(ex);

	ex = parse("/a h(sec=sys) i(sec=none) j(sec=none:sys) k(sec=unix:null:sys)\n");
	e = first(ex);
	ok(e && e->nclients == 4, "sec= lists parse: %s", err);
	if (e && e->nclients == 4) {
		c = &e->clients[0];
		ok(c->opts.nsec == 1 && c->opts.sec[0] == EXPORTS_SEC_SYS &&
		   exports_sec_allows(c, EXPORTS_SEC_SYS) &&
		   !exports_sec_allows(c, EXPORTS_SEC_NONE),
		   "sec=sys: AUTH_NONE refused");
		c = &e->clients[1];
		ok(c->opts.nsec == 1 && exports_sec_allows(c, EXPORTS_SEC_NONE) &&
		   !exports_sec_allows(c, EXPORTS_SEC_SYS), "sec=none: AUTH_SYS refused");
		c = &e->clients[2];
		n = exports_sec_list(c, l);
		ok(n == 2 && l[0] == EXPORTS_SEC_NONE && l[1] == EXPORTS_SEC_SYS,
		   "sec=none:sys listed in the order written");
		c = &e->clients[3];
		n = exports_sec_list(c, l);
		ok(n == 2 && l[0] == EXPORTS_SEC_SYS && l[1] == EXPORTS_SEC_NONE,
		   "unix and null are sys and none; a flavour named twice counts once");
	}
	exports_free(ex);

	ex = parse("/a -sec=none h i(rw)\n");
	e = first(ex);
	ok(e && e->nclients == 2 && e->clients[1].opts.nsec == 1 &&
	   e->clients[1].opts.sec[0] == EXPORTS_SEC_NONE && e->clients[1].opts.rw,
	   "sec= in the default options applies to every client");
	exports_free(ex);

	ex = parse("/a h(sec=sys)\n/b i(sec=none)\n");
	n = ex ? exports_sec_union(ex, l) : 0;
	ok(n == 2 && l[0] == EXPORTS_SEC_SYS && l[1] == EXPORTS_SEC_NONE,
	   "union of the exports' flavours, sys before none");
	exports_free(ex);
	ex = parse("/a h(sec=sys)\n/b i(sec=sys)\n");
	n = ex ? exports_sec_union(ex, l) : 0;
	ok(n == 1 && l[0] == EXPORTS_SEC_SYS, "union of sec=sys exports: sys alone");
	exports_free(ex);

	fails("/a *(sec=krb5p)\n",
	      F ":1: \"sec=krb5p\": krb5p needs RPCSEC_GSS (Kerberos), which nfsxd does not serve yet: give sys or none",
	      "krb5p refused at load, naming the line");
	fails("\n/a *(rw) h(sec=sys:krb5)\n",
	      F ":2: \"sec=sys:krb5\": krb5 needs RPCSEC_GSS (Kerberos), which nfsxd does not serve yet: give sys or none",
	      "krb5 in a list refused too");
	fails("/a *(sec=krb5i:sys)\n",
	      F ":1: \"sec=krb5i:sys\": krb5i needs RPCSEC_GSS (Kerberos), which nfsxd does not serve yet: give sys or none",
	      "krb5i refused");
	fails("/a *(sec=dh)\n",
	      F ":1: unknown flavour \"dh\" in \"sec=dh\": give sys or none", "unknown flavour");
	fails("/a *(sec=)\n", F ":1: empty flavour in \"sec=\"", "empty sec=");
	fails("/a *(sec=sys::none)\n", F ":1: empty flavour in \"sec=sys::none\"",
	      "empty flavour in a list");
	fails("/a *(sec=sys,ro,sec=none)\n",
	      F ":1: \"sec=none\": a second sec= for this client (default options included): write one list, e.g. sec=sys:none (options per flavour are not supported)",
	      "a second sec= (options per flavour) refused");
	fails("/a -sec=sys h(sec=none)\n",
	      F ":1: \"sec=none\": a second sec= for this client (default options included): write one list, e.g. sec=sys:none (options per flavour are not supported)",
	      "a client's sec= after the default options' refused");

	ex = exports_new();
	ok(ex && exports_add_quick(ex, "/srv/x:rw,sec=none:sys", err, sizeof(err)) == 0 &&
	   exports_find_path(ex, "/srv/x")->clients[0].opts.nsec == 2 &&
	   exports_find_path(ex, "/srv/x")->clients[0].opts.sec[0] == EXPORTS_SEC_NONE,
	   "--export DIR:sec=none:sys (the first ':' ends DIR): %s", err);
	ok(ex && exports_add_quick(ex, "/srv/y:sec=krb5", err, sizeof(err)) < 0 &&
	   strstr(err, "--export \"/srv/y:sec=krb5\": \"sec=krb5\": krb5 needs RPCSEC_GSS") == err,
	   "--export with krb5 refused: '%s'", err);
	exports_free(ex);
	ok(strcmp(exports_sec_name(EXPORTS_SEC_SYS), "sys") == 0 &&
	   strcmp(exports_sec_name(EXPORTS_SEC_NONE), "none") == 0, "flavour names");
}

static void test_quick(void)
{
	struct nfsx_exports *ex;
	const struct nfsx_export *e;
	const struct nfsx_export_client *c;
	unsigned int nw;

	ex = exports_new();
	ok(ex && exports_count(ex) == 0, "exports_new: empty");
	ok(exports_add_quick(ex, "/srv/nfs:rw,no_root_squash", err, sizeof(err)) == 0,
	   "quick form with options: %s", err);
	e = exports_find_path(ex, "/srv/nfs");
	c = e ? &e->clients[0] : NULL;
	ok(e && e->nclients == 1 && c->kind == NFSX_CLIENT_ANY &&
	   strcmp(c->spec, "*") == 0 && c->opts.rw && !c->opts.root_squash &&
	   c->opts.secure, "client * with those options, defaults for the rest");
	ok(e && e->line == 0 && strcmp(e->source, "--export") == 0,
	   "origin --export");
	ok(exports_add_quick(ex, "/srv/ro", err, sizeof(err)) == 0 &&
	   exports_find_path(ex, "/srv/ro")->clients[0].opts.rw == false,
	   "quick form without options: defaults");
	ok(exports_add_quick(ex, "/srv/empty:", err, sizeof(err)) == 0,
	   "quick form with an empty option list");
	ok(exports_add_quick(ex, "/srv/x:rw2", err, sizeof(err)) < 0 &&
	   strcmp(err, "--export \"/srv/x:rw2\": unknown option \"rw2\"") == 0,
	   "unknown option names --export: '%s'", err);
	ok(exports_add_quick(ex, "srv:rw", err, sizeof(err)) < 0 &&
	   strcmp(err, "--export \"srv:rw\": path \"srv\" is not an absolute path") == 0,
	   "relative path: '%s'", err);
	ok(exports_add_quick(ex, ":rw", err, sizeof(err)) < 0, "empty path");
	{
		char longarg[5000];

		memset(longarg, 'x', sizeof(longarg));
		longarg[0] = '/';
		memcpy(longarg + sizeof(longarg) - 4, ":rw", 4);
		ok(exports_add_quick(ex, longarg, err, sizeof(err)) < 0 &&
		   strstr(err, "\": the path is too long"), "quick path too long");
	}
	ok(exports_add_quick(ex, "/srv/nfs/:ro", err, sizeof(err)) < 0 &&
	   strcmp(err, "--export \"/srv/nfs/:ro\": \"/srv/nfs\" is already exported (--export); give all its clients on one line") == 0,
	   "duplicate of an --export: '%s'", err);
	nw = exports_warning_count(ex);
	ok(exports_add_quick(ex, "/srv/y:insecure_locks,fsid=x", err, sizeof(err)) < 0 &&
	   exports_count(ex) == 3 && exports_warning_count(ex) == nw,
	   "a refused --export leaves the set as it was");
	ok(exports_add_quick(ex, "/srv/z:insecure_locks", err, sizeof(err)) == 0 &&
	   exports_warning_count(ex) == nw + 1, "a warning from --export");
	ok(exports_warning(ex, nw) &&
	   strcmp(exports_warning(ex, nw),
		  "--export \"/srv/z:insecure_locks\": option \"insecure_locks\" is accepted but has no effect") == 0,
	   "warnings name --export: '%s'", exports_warning(ex, nw) ? exports_warning(ex, nw) : "");
	exports_free(ex);

	/* after a file */
	ex = parse("/a *(fsid=1)\n/b *\n");
	ok(ex && exports_add_quick(ex, "/a:rw", err, sizeof(err)) < 0 &&
	   strcmp(err, "--export \"/a:rw\": \"/a\" is already exported (" F ":1); give all its clients on one line") == 0,
	   "duplicate of a file export: '%s'", err);
	ok(ex && exports_add_quick(ex, "/c:fsid=1", err, sizeof(err)) < 0 &&
	   strcmp(err, "--export \"/c:fsid=1\": fsid=1 of \"/c\" is already used by \"/a\" (" F ":1)") == 0,
	   "fsid conflict with a file export: '%s'", err);
	e = ex ? exports_find_path(ex, "/b") : NULL;
	ok(ex && exports_add_quick(ex, "/c:fsid=2,rw", err, sizeof(err)) == 0 &&
	   exports_count(ex) == 3 && exports_find_path(ex, "/b") == e,
	   "added after the file; earlier exports did not move");
	e = ex ? exports_next(ex, NULL) : NULL;
	ok(e && strcmp(e->path, "/a") == 0 && (e = exports_next(ex, e)) &&
	   strcmp(e->path, "/b") == 0 && (e = exports_next(ex, e)) &&
	   strcmp(e->path, "/c") == 0 && e->clients[0].opts.rw &&
	   !exports_next(ex, e), "iteration in order: file, then --export");
	exports_free(ex);
	exports_free(NULL);
}

static char tmpname[64];

static const char *write_tmp(const char *text, size_t len)
{
	int fd;

	snprintf(tmpname, sizeof(tmpname), "/tmp/test_exports.XXXXXX");
	fd = mkstemp(tmpname);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
	return tmpname;
}

static void test_file_and_size(void)
{
	struct nfsx_exports *ex;
	const char *name;
	char *text, want[256];
	size_t n = 0, i;

	ex = exports_parse_file("/nonexistent/exports", err, sizeof(err));
	ok(!ex && strcmp(err, "cannot open /nonexistent/exports: No such file or directory") == 0,
	   "missing file: '%s'", err);

	/* 1000 exports of several clients each */
	text = malloc(1000 * 128);
	for (i = 0; i < 1000; i++)
		n += (size_t)sprintf(text + n,
				     "/export/dir%04zu -rw 10.%zu.0.0/16(ro) host%zu.lan *.lan(fsid=%zu)\n",
				     i, i % 256, i, i + 1);
	name = write_tmp(text, n);
	ex = exports_parse_file(name, err, sizeof(err));
	ok(ex && exports_count(ex) == 1000, "1000-line file parses: %s", err);
	ok(ex && exports_find_path(ex, "/export/dir0999") &&
	   exports_find_path(ex, "/export/dir0999")->id == 1000 &&
	   exports_find_id(ex, 500) == exports_find_path(ex, "/export/dir0499") &&
	   strcmp(exports_find_path(ex, "/export/dir0007")->source, name) == 0,
	   "lookups in the 1000");
	exports_free(ex);
	unlink(name);

	/* 1024 exports, then 1025 */
	n = 0;
	for (i = 0; i < 1025; i++)
		n += (size_t)sprintf(text + n, "/e%zu *\n", i);
	ex = parse(text);
	ok(!ex && strcmp(err, F ":1025: too many exports (at most 1024)") == 0,
	   "1025 exports refused: '%s'", err);
	text[n - strlen("/e1024 *\n")] = 0;
	ex = parse(text);
	ok(ex && exports_count(ex) == 1024, "1024 exports");
	exports_free(ex);
	free(text);

	/* file errors name the file and line */
	name = write_tmp("/a *\n\n/b *(rw2)\n", 16);
	ex = exports_parse_file(name, err, sizeof(err));
	snprintf(want, sizeof(want), "%s:3: unknown option \"rw2\"", name);
	ok(!ex && strcmp(err, want) == 0, "file error: '%s'", err);
	unlink(name);

	name = write_tmp("/a *\n/b\0 *\n", 11);
	ex = exports_parse_file(name, err, sizeof(err));
	snprintf(want, sizeof(want), "%s:2: NUL byte in the file", name);
	ok(!ex && strcmp(err, want) == 0, "NUL byte: '%s'", err);
	unlink(name);

	/* a line of 64 KiB + 1 from a file: refused, nothing leaks */
	text = malloc(EXPORTS_MAX_LINE + 16);
	memcpy(text, "/a *\n", 5);
	memset(text + 5, 'x', EXPORTS_MAX_LINE + 1);
	text[5] = '/';
	text[5 + EXPORTS_MAX_LINE + 1] = '\n';
	name = write_tmp(text, EXPORTS_MAX_LINE + 7);
	ex = exports_parse_file(name, err, sizeof(err));
	snprintf(want, sizeof(want), "%s:2: line longer than 65536 bytes", name);
	ok(!ex && strcmp(err, want) == 0, "64 KiB + 1 from a file: '%s'", err);
	unlink(name);
	free(text);

	/* a short error buffer is filled and terminated */
	{
		char small[12];

		memset(small, 'z', sizeof(small));
		ex = exports_parse_string("/a *(bad)\n", F, small, sizeof(small));
		ok(!ex && small[11] == 0 && strncmp(small, "/etc/export", 11) == 0,
		   "short error buffer truncated");
		ex = exports_parse_string("/a *(bad)\n", F, NULL, 0);
		ok(!ex, "no error buffer");
	}

	/* many warnings are capped */
	text = malloc(100 * 16);
	n = 0;
	for (i = 0; i < 100; i++)
		n += (size_t)sprintf(text + n, "/w%zu\n", i);
	ex = parse(text);
	ok(ex && exports_warning_count(ex) == EXPORTS_MAX_WARNINGS &&
	   strcmp(exports_warning(ex, EXPORTS_MAX_WARNINGS - 1),
		  F ": more warnings not shown") == 0, "warnings capped at %d",
	   EXPORTS_MAX_WARNINGS);
	exports_free(ex);
	free(text);

	/* control bytes never reach a message */
	ex = parse("/a *(\x1b[31m)\n");
	ok(!ex && strchr(err, 0x1b) == NULL, "control bytes replaced: '%s'", err);
}

int main(void)
{
	test_syntax();
	test_options();
	test_errors();
	test_matching();
	test_squash();
	test_port();
	test_ids();
	test_sec();
	test_quick();
	test_file_and_size();
	return tap_done();
}
