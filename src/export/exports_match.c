/* SPDX-License-Identifier: MIT */
/*
 * Client rules: what a client word of the exports file names (parsed
 * here so that the representation and its matching sit together), which
 * rule a peer falls under, squashing, and the privileged-port check.
 *
 * Matching runs on every MOUNT and, later, on every NFS call's
 * credential check: it reads the rules only, allocates nothing, and
 * the host name pattern matcher is a loop (no recursion, at worst
 * pattern length x name length steps).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>

#include "export/exports_internal.h"
#include "util/num.h"

#define HOSTNAME_MAX 255
#define ADDR_TEXT_MAX 64	/* longer than any IPv4/IPv6 address text */

/* ---- parsing -------------------------------------------------------- */

static bool is_host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

/*
 * A host name, or a pattern with * ? and [...] ([!...] or [^...]
 * negated, a-z ranges); the matcher relies on the brackets checked here.
 * Return values: the kind, or -1 when @s is neither.
 */
static int host_kind(const char *s)
{
	bool wild = false;
	size_t i, n = strlen(s);

	if (n == 0 || n > HOSTNAME_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] == '*' || s[i] == '?') {
			wild = true;
		} else if (s[i] == '[') {
			size_t j = i + 1;

			if (s[j] == '!' || s[j] == '^')
				j++;
			if (!is_host_char(s[j]))
				return -1;
			while (is_host_char(s[j]))
				j++;
			if (s[j] != ']')
				return -1;
			i = j;
			wild = true;
		} else if (!is_host_char(s[i])) {
			return -1;
		}
	}
	return wild ? NFSX_CLIENT_WILDCARD : NFSX_CLIENT_HOST;
}

static void set_v4(struct nfsx_export_client *c, uint32_t addr,
		   unsigned int prefix)
{
	uint32_t mask = prefix ? 0xffffffffu << (32 - prefix) : 0;

	c->kind = NFSX_CLIENT_IPV4;
	c->net.v4.mask = mask;
	c->net.v4.addr = addr & mask;
}

/* IPv6 rules inside ::ffff:0:0/96 become IPv4 rules (see exports_match). */
static void set_v6(struct nfsx_export_client *c, const uint8_t a[16],
		   unsigned int prefix)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	unsigned int i;

	if (prefix >= 96 && memcmp(a, mapped, 12) == 0) {
		set_v4(c, (uint32_t)a[12] << 24 | (uint32_t)a[13] << 16 |
			  (uint32_t)a[14] << 8 | a[15], prefix - 96);
		return;
	}
	c->kind = NFSX_CLIENT_IPV6;
	c->net.v6.prefix = prefix;
	for (i = 0; i < 16; i++) {
		unsigned int bits = prefix > i * 8 ? prefix - i * 8 : 0;

		c->net.v6.addr[i] = bits >= 8 ? a[i] :
				    (uint8_t)(a[i] & (0xff00u >> bits));
	}
}

/* a.b.c.d/len, a.b.c.d/netmask, ipv6/len. */
static int parse_network(const struct exports_ctx *ctx, unsigned int line,
			 const char *s, struct nfsx_export_client *c)
{
	const char *slash = strchr(s, '/');
	char addr[ADDR_TEXT_MAX];
	size_t n = (size_t)(slash - s);
	uint8_t a6[16];
	struct in_addr a4, m4;
	uint32_t prefix;

	if (n >= sizeof(addr))
		goto bad;
	memcpy(addr, s, n);
	addr[n] = 0;
	if (inet_pton(AF_INET, addr, &a4) == 1) {
		if (util_parse_u32(slash + 1, strlen(slash + 1), 0, 32, &prefix)) {
			set_v4(c, ntohl(a4.s_addr), prefix);
			return 0;
		}
		if (inet_pton(AF_INET, slash + 1, &m4) == 1) {
			uint32_t inv = ~ntohl(m4.s_addr);

			/* contiguous: the inverse is 2^k - 1 */
			if (inv & (inv + 1)) {
				exports_error(ctx, line,
					      "netmask in \"%s\" is not contiguous",
					      s);
				return -1;
			}
			for (prefix = 32; inv; inv >>= 1)
				prefix--;
			set_v4(c, ntohl(a4.s_addr), prefix);
			return 0;
		}
	} else if (inet_pton(AF_INET6, addr, a6) == 1) {
		if (util_parse_u32(slash + 1, strlen(slash + 1), 0, 128, &prefix)) {
			set_v6(c, a6, prefix);
			return 0;
		}
	}
bad:
	exports_error(ctx, line,
		      "bad network \"%s\": give a.b.c.d/len, a.b.c.d/netmask or ipv6/len",
		      s);
	return -1;
}

/* What a client word (without its options) names. */
int exports_parse_client(const struct exports_ctx *ctx, unsigned int line,
			 const char *s, struct nfsx_export_client *c)
{
	struct in_addr a4;
	uint8_t a6[16];
	int kind;

	if (strcmp(s, "*") == 0) {
		c->kind = NFSX_CLIENT_ANY;
		return 0;
	}
	if (s[0] == '@') {
		exports_error(ctx, line,
			      "netgroup \"%s\" is not supported: list the hosts or networks instead",
			      s);
		return -1;
	}
	if (strchr(s, '/'))
		return parse_network(ctx, line, s, c);
	if (inet_pton(AF_INET, s, &a4) == 1) {
		set_v4(c, ntohl(a4.s_addr), 32);
		return 0;
	}
	if (inet_pton(AF_INET6, s, a6) == 1) {
		set_v6(c, a6, 128);
		return 0;
	}
	/* No top-level domain is all digits: this was meant as an address. */
	if (strspn(s, "0123456789.") == strlen(s)) {
		exports_error(ctx, line, "bad IPv4 address \"%s\"", s);
		return -1;
	}
	if (strchr(s, ':')) {
		exports_error(ctx, line, "bad IPv6 address \"%s\"", s);
		return -1;
	}
	kind = host_kind(s);
	if (kind < 0) {
		exports_error(ctx, line,
			      "bad client \"%s\": not a host name, pattern, address or network",
			      s);
		return -1;
	}
	c->kind = (enum nfsx_client_kind)kind;
	return 0;
}

/* ---- matching ------------------------------------------------------- */

/* The peer as rules see it: IPv4-mapped IPv6 addresses are IPv4. */
struct peer {
	int family;		/* AF_INET, AF_INET6, or 0: no address */
	uint32_t v4;		/* host byte order */
	uint8_t v6[16];
};

static void peer_view(const struct sockaddr_storage *ss, struct peer *p)
{
	p->family = 0;
	if (!ss)
		return;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		p->family = AF_INET;
		p->v4 = ntohl(sin->sin_addr.s_addr);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
		const uint8_t *a = sin6->sin6_addr.s6_addr;

		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			p->family = AF_INET;
			p->v4 = (uint32_t)a[12] << 24 | (uint32_t)a[13] << 16 |
				(uint32_t)a[14] << 8 | a[15];
		} else {
			p->family = AF_INET6;
			memcpy(p->v6, a, 16);
		}
	}
}

static bool v6_match(const struct nfsx_export_client *c, const uint8_t a[16])
{
	unsigned int full = c->net.v6.prefix / 8, rest = c->net.v6.prefix % 8;

	if (memcmp(a, c->net.v6.addr, full) != 0)
		return false;
	return rest == 0 ||
	       ((a[full] ^ c->net.v6.addr[full]) & (0xff00u >> rest) & 0xffu) == 0;
}

static unsigned char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') :
					(unsigned char)c;
}

/* Does the pattern element at *@pp (not '*') match @ch? Moves *@pp past it. */
static bool element_match(const char **pp, char ch)
{
	const char *p = *pp;
	unsigned char c = lower(ch);
	bool neg = false, hit = false;

	if (*p != '[') {
		*pp = p + 1;
		return *p == '?' || lower(*p) == c;
	}
	p++;
	if (*p == '!' || *p == '^') {
		neg = true;
		p++;
	}
	while (*p && *p != ']') {
		unsigned char lo = lower(*p), hi = lo;

		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = lower(p[2]);
			p += 3;
		} else {
			p++;
		}
		if (c >= lo && c <= hi)
			hit = true;
	}
	*pp = *p ? p + 1 : p;
	return *p && hit != neg;	/* an unclosed '[' never matches */
}

/*
 * Glob match without recursion: on a mismatch, let the last '*' absorb
 * one more character and retry from there (earlier stars never need to
 * change: the last one can absorb anything they could).
 */
static bool glob_match(const char *pat, const char *s)
{
	const char *p = pat, *star = NULL, *mark = NULL;

	while (*s) {
		const char *q = p;

		if (*p == '*') {
			star = ++p;
			mark = s;
			continue;
		}
		if (*p && element_match(&q, *s)) {
			p = q;
			s++;
			continue;
		}
		if (!star)
			return false;
		p = star;
		s = ++mark;
	}
	while (*p == '*')
		p++;
	return !*p;
}

const struct nfsx_export_client *
exports_match(const struct nfsx_export *e, const struct sockaddr_storage *peer,
	      const char *peer_hostname)
{
	struct peer p;
	unsigned int i;

	peer_view(peer, &p);
	for (i = 0; i < e->nclients; i++) {
		const struct nfsx_export_client *c = &e->clients[i];

		switch (c->kind) {
		case NFSX_CLIENT_ANY:
			return c;
		case NFSX_CLIENT_HOST:
			if (peer_hostname && strcasecmp(c->spec, peer_hostname) == 0)
				return c;
			break;
		case NFSX_CLIENT_WILDCARD:
			if (peer_hostname && glob_match(c->spec, peer_hostname))
				return c;
			break;
		case NFSX_CLIENT_IPV4:
			if (p.family == AF_INET &&
			    (p.v4 & c->net.v4.mask) == c->net.v4.addr)
				return c;
			break;
		case NFSX_CLIENT_IPV6:
			if (p.family == AF_INET6 && v6_match(c, p.v6))
				return c;
			break;
		}
	}
	return NULL;
}

bool exports_match_needs_name(const struct nfsx_export *e,
			      const struct sockaddr_storage *peer)
{
	struct peer p;
	unsigned int i;

	peer_view(peer, &p);
	for (i = 0; i < e->nclients; i++) {
		const struct nfsx_export_client *c = &e->clients[i];

		switch (c->kind) {
		case NFSX_CLIENT_ANY:
			return false;
		case NFSX_CLIENT_HOST:
		case NFSX_CLIENT_WILDCARD:
			return true;
		case NFSX_CLIENT_IPV4:
			if (p.family == AF_INET &&
			    (p.v4 & c->net.v4.mask) == c->net.v4.addr)
				return false;
			break;
		case NFSX_CLIENT_IPV6:
			if (p.family == AF_INET6 && v6_match(c, p.v6))
				return false;
			break;
		}
	}
	return false;
}

/* ---- what a matched rule implies ------------------------------------ */

void exports_squash(const struct nfsx_export_client *c, uint32_t *uid,
		    uint32_t *gid, uint32_t *gids, uint32_t *ngids)
{
	const struct nfsx_export_opts *o = &c->opts;
	uint32_t i, n = (gids && ngids) ? *ngids : 0;

	if (o->all_squash) {
		*uid = o->anonuid;
		*gid = o->anongid;
		if (ngids)
			*ngids = 0;
	} else if (o->root_squash) {
		if (*uid == 0)
			*uid = o->anonuid;
		if (*gid == 0)
			*gid = o->anongid;
		/* mapped, not removed: Linux keeps the list's length */
		for (i = 0; i < n; i++)
			if (gids[i] == 0)
				gids[i] = o->anongid;
	}
	/* Linux: an invalid id ((uid_t)-1) is never used as such. */
	if (*uid == UINT32_MAX)
		*uid = o->anonuid;
	if (*gid == UINT32_MAX)
		*gid = o->anongid;
}

bool exports_port_ok(const struct nfsx_export_client *c,
		     const struct sockaddr_storage *peer)
{
	uint16_t port;

	if (!c->opts.secure)
		return true;
	if (!peer)
		return false;
	if (peer->ss_family == AF_INET)
		port = ntohs(((const struct sockaddr_in *)peer)->sin_port);
	else if (peer->ss_family == AF_INET6)
		port = ntohs(((const struct sockaddr_in6 *)peer)->sin6_port);
	else
		return false;
	return port < 1024;
}
