/* SPDX-License-Identifier: MIT */
/*
 * NFSv4 owner and owner_group strings (RFC 7530 5.9, RFC 8881 5.9):
 * uid/gid to the string a client is shown, and a string a client sends
 * back to an id.
 *
 * DESIGN
 * - Numeric strings ("1000") are always accepted and are what the server
 *   sends when told to (knfsd's default for AUTH_SYS,
 *   nfs4_disable_idmapping): a client and server that share uids but no
 *   NFSv4 domain then agree without an idmapper.
 * - "name@domain" is looked up in the system's user and group databases
 *   (getpwnam_r/getgrnam_r) only when the domain is the server's own,
 *   compared without regard to case as DNS names are; an id with no name
 *   is sent as a number, as nfsidmap does. Those lookups go through NSS
 *   and may block (LDAP, sssd): callers off the event loop only.
 * - Bounded: strings longer than NFS4_OWNER_MAX bytes are refused (and
 *   never produced: a name@domain that long is sent as a number), and
 *   the lookup buffers stop growing at a fixed size.
 */
#ifndef NFSX_NFS4_OWNER_H
#define NFSX_NFS4_OWNER_H

#include <stdbool.h>
#include <stdint.h>

/* The longest owner string either way, in bytes. */
#define NFS4_OWNER_MAX 512u

enum nfs4_id_kind {
	NFS4_ID_USER,
	NFS4_ID_GROUP,
};

/*
 * nfs4_owner_from_id - the owner (@kind NFS4_ID_USER) or owner_group
 * string of @id, into @buf, not NUL terminated.
 * @numeric: the decimal number, whatever the databases say.
 * @domain: the server's NFSv4 domain; NULL or "" means numeric.
 * Return values: the string's length, 1 to NFS4_OWNER_MAX.
 */
uint32_t nfs4_owner_from_id(enum nfs4_id_kind kind, uint32_t id, bool numeric,
			    const char *domain, char buf[NFS4_OWNER_MAX]);

/*
 * nfs4_owner_to_id - the id a client's owner or owner_group string
 * names: a decimal number (leading zeros allowed, at most 4294967294,
 * since (uid_t)-1 means "no owner" to chown), or "name@domain" with
 * @domain (case-insensitive) naming a user or group the system knows.
 * Return values: NFS4_OK with *@id set; NFS4ERR_BADOWNER for anything
 * else (empty, too long, a NUL inside, another domain, no domain, an
 * unknown name).
 */
uint32_t nfs4_owner_to_id(enum nfs4_id_kind kind, const uint8_t *s, uint32_t len,
			  const char *domain, uint32_t *id);

#endif
