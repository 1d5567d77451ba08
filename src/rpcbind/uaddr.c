/* SPDX-License-Identifier: MIT */
/* Universal address conversions: see uaddr.h. */
#include "rpcbind/uaddr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int uaddr_make(const char *ip, uint16_t port, char *out, size_t len)
{
	int n = snprintf(out, len, "%s.%u.%u", ip, port >> 8, port & 0xffu);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int uaddr_from_sockaddr(const struct sockaddr_storage *ss, char *out, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)ss;

		inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
		return uaddr_make(ip, ntohs(s->sin_port), out, len);
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)ss;

		inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
		return uaddr_make(ip, ntohs(s->sin6_port), out, len);
	}
	return -1;
}

/* One decimal component 0..255, all digits. */
static int octet(const char *s, size_t n)
{
	int v = 0;
	size_t i;

	if (n == 0 || n > 3)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v > 255 ? -1 : v;
}

int uaddr_split(const char *uaddr, char *host, size_t hostlen, uint16_t *port)
{
	const char *lo = strrchr(uaddr, '.'), *hi;
	int phi, plo;
	size_t hl;

	if (!lo || lo == uaddr)
		return -1;
	for (hi = lo - 1; hi > uaddr && *hi != '.'; hi--)
		;
	if (*hi != '.')
		return -1;
	phi = octet(hi + 1, (size_t)(lo - hi - 1));
	plo = octet(lo + 1, strlen(lo + 1));
	if (phi < 0 || plo < 0)
		return -1;
	hl = (size_t)(hi - uaddr);
	if (hl == 0 || hl >= hostlen)
		return -1;
	memcpy(host, uaddr, hl);
	host[hl] = 0;
	{
		struct in6_addr a;

		if (inet_pton(AF_INET, host, &a) != 1 &&
		    inet_pton(AF_INET6, host, &a) != 1)
			return -1;
	}
	*port = (uint16_t)(phi << 8 | plo);
	return 0;
}
