/* SPDX-License-Identifier: MIT */
/*
 * Universal addresses (RFC 5665 section 5.2.3): "h1.h2.h3.h4.p1.p2" for
 * IPv4, "x:...:x.p1.p2" for IPv6, as rpcbind speaks them.
 */
#ifndef NFSX_RPCBIND_UADDR_H
#define NFSX_RPCBIND_UADDR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define UADDR_MAX 64

/* Return values: 0, or -1 when @ss is not IPv4/IPv6 or @len is too small. */
int uaddr_from_sockaddr(const struct sockaddr_storage *ss, char *out, size_t len);

/* "ADDR" + port → universal address. Return values: 0 or -1. */
int uaddr_make(const char *ip, uint16_t port, char *out, size_t len);

/*
 * uaddr_split - parse @uaddr into its host part and port.
 * Return values: 0, or -1 when it is not a universal address.
 */
int uaddr_split(const char *uaddr, char *host, size_t hostlen, uint16_t *port);

#endif
