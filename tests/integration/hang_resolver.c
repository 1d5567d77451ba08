/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD shim for the hostwait test: a name service that never
 * answers for some peers. Reverse lookups (getnameinfo with NI_NAMEREQD)
 * of 127.0.0.X hang for an hour when X is listed in NFSX_HANG_OCTETS
 * (comma separated), give "five.test" for 127.0.0.5 and no name for the
 * rest; forward lookups of "five.test" give 127.0.0.5, of other *.test
 * names nothing. Everything else goes to the C library, so no query
 * ever leaves the machine for the addresses the test uses.
 */
#include <dlfcn.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int gni_fn(const struct sockaddr *, socklen_t, char *, socklen_t,
		   char *, socklen_t, int);
typedef int gai_fn(const char *, const char *, const struct addrinfo *,
		   struct addrinfo **);

static bool listed(unsigned int octet)
{
	const char *s = getenv("NFSX_HANG_OCTETS");

	while (s && *s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		if (end == s)
			break;
		if (v == octet)
			return true;
		s = *end == ',' ? end + 1 : end;
	}
	return false;
}

int getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
		socklen_t hostlen, char *serv, socklen_t servlen, int flags)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
	gni_fn *real = (gni_fn *)dlsym(RTLD_NEXT, "getnameinfo");
	uint32_t a;
	int i;

	if (!(flags & NI_NAMEREQD) || sa->sa_family != AF_INET)
		return real(sa, salen, host, hostlen, serv, servlen, flags);
	a = ntohl(sin->sin_addr.s_addr);
	if ((a >> 8) != 0x7f0000u)
		return real(sa, salen, host, hostlen, serv, servlen, flags);
	if (listed(a & 0xff))
		for (i = 0; i < 3600; i++)
			sleep(1);
	if ((a & 0xff) == 5 && host && hostlen > 9) {
		memcpy(host, "five.test", 10);
		return 0;
	}
	return EAI_NONAME;
}

int getaddrinfo(const char *node, const char *service,
		const struct addrinfo *hints, struct addrinfo **res)
{
	gai_fn *real = (gai_fn *)dlsym(RTLD_NEXT, "getaddrinfo");
	size_t n = node ? strlen(node) : 0;
	struct addrinfo h;

	if (n < 5 || strcmp(node + n - 5, ".test") != 0)
		return real(node, service, hints, res);
	if (strcmp(node, "five.test") != 0)
		return EAI_NONAME;
	memset(&h, 0, sizeof(h));
	if (hints)
		h = *hints;
	h.ai_flags |= AI_NUMERICHOST;
	return real("127.0.0.5", service, &h, res);
}
