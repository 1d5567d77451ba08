/* SPDX-License-Identifier: MIT */
/*
 * Export configuration: /etc/exports syntax (exports(5)) and the
 * command line's --export DIR[:OPTIONS], the client rules of each
 * export, and the checks made with them (which rule a peer matches,
 * squashing, the privileged-port check).
 *
 * DESIGN
 * - Parsing builds a whole set or nothing: the first error rejects the
 *   set, with "FILE:LINE: message" naming the offending token, so a
 *   reload (SIGHUP) that fails keeps the old set running.
 * - A set is read-only once built: any number of threads may match
 *   against it without locks. There is no global state.
 * - The module does no I/O but reading the exports file, and never DNS:
 *   the caller resolves the peer's name and passes it in.
 * - Input is bounded (EXPORTS_MAX exports, EXPORTS_MAX_CLIENTS clients
 *   per export, EXPORTS_MAX_LINE bytes per line) and is parsed with
 *   loops only, no recursion.
 */
#ifndef NFSX_EXPORT_EXPORTS_H
#define NFSX_EXPORT_EXPORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define EXPORTS_MAX 1024
#define EXPORTS_MAX_CLIENTS 256
#define EXPORTS_MAX_LINE 65536	/* bytes of a line, continuations joined */
#define EXPORTS_MAX_WARNINGS 64

/* The anonymous user and group of Linux (nobody, nogroup). */
#define EXPORTS_ANON_ID 65534u

/*
 * Security flavours (sec=), as RPC numbers them (RFC 5531): AUTH_NONE
 * and AUTH_SYS are served; RPCSEC_GSS will be its pseudo-flavours
 * (RFC 2623: 390003 krb5, 390004 krb5i, 390005 krb5p), one number per
 * mechanism and service, so that a list of numbers says it all.
 */
#define EXPORTS_SEC_NONE 0u
#define EXPORTS_SEC_SYS 1u
/* Flavours in one sec= list (knfsd: MAX_SECINFO_LIST). */
#define EXPORTS_MAX_SEC 8

enum nfsx_client_kind {
	NFSX_CLIENT_ANY,	/* "*": every peer */
	NFSX_CLIENT_HOST,	/* a host name, compared case-insensitively */
	NFSX_CLIENT_WILDCARD,	/* a host name pattern with * ? [...] */
	NFSX_CLIENT_IPV4,	/* an IPv4 address or network */
	NFSX_CLIENT_IPV6,	/* an IPv6 address or network */
};

/* The options of one client rule. Defaults are Linux's (see below). */
struct nfsx_export_opts {
	bool rw;		/* rw / ro (default ro) */
	bool async;		/* async / sync (default sync) */
	bool root_squash;	/* root_squash (default) / no_root_squash */
	bool all_squash;	/* all_squash / no_all_squash (default) */
	bool secure;		/* secure (default) / insecure */
	bool subtree_check;	/* recorded only; default no_subtree_check */
	bool wdelay;		/* wdelay (default) / no_wdelay */
	bool nohide;		/* nohide / hide (default) */
	bool crossmnt;		/* default off */
	bool insecure_locks;	/* accepted and ignored (a warning says so) */
	uint32_t anonuid;	/* default EXPORTS_ANON_ID */
	uint32_t anongid;	/* default EXPORTS_ANON_ID */
	/*
	 * sec=: the flavours a client may use, in the order of preference
	 * written. nsec 0: no sec= option, where knfsd takes both AUTH_SYS
	 * and AUTH_NONE (see exports_sec_allows()).
	 */
	uint32_t sec[EXPORTS_MAX_SEC];
	unsigned int nsec;
};

struct nfsx_export_client {
	enum nfsx_client_kind kind;
	char *spec;		/* as written, without the options */
	union {
		struct {
			uint32_t addr;	/* host byte order, host bits clear */
			uint32_t mask;
		} v4;
		struct {
			uint8_t addr[16];	/* host bits clear */
			unsigned int prefix;	/* 0..128 */
		} v6;
	} net;
	struct nfsx_export_opts opts;
	unsigned int line;	/* where the rule was written; 0: --export */
};

enum nfsx_fsid_kind {
	NFSX_FSID_NONE,		/* no fsid= option */
	NFSX_FSID_NUM,		/* fsid=N; fsid=root is fsid=0 */
	NFSX_FSID_UUID,		/* fsid=32 hex digits */
};

struct nfsx_export {
	/*
	 * Stable identifier, for file handles: the same for the same
	 * export across restarts and reloads.
	 * - fsid=N (and fsid=root, which is 0): N.
	 * - fsid=UUID: 0x80000000 | the four 32-bit words of the UUID
	 *   XORed together.
	 * - no fsid: 0x80000000 | the 32-bit FNV-1a hash of the path (as
	 *   normalised) with the top bit dropped.
	 * The top bit keeps derived ids apart from the small fsid numbers
	 * admins write. Two exports with the same id are refused when the
	 * set is built (the message suggests an fsid= option), so an id
	 * names one export. Changing this derivation invalidates every
	 * file handle clients hold.
	 */
	uint32_t id;
	char *path;		/* absolute, normalised: no //, /./, or trailing / */
	enum nfsx_fsid_kind fsid_kind;
	uint32_t fsid;		/* NFSX_FSID_NUM */
	uint8_t uuid[16];	/* NFSX_FSID_UUID */
	struct nfsx_export_client *clients;	/* in the order written */
	unsigned int nclients;
	const char *source;	/* file name, or "--export" */
	unsigned int line;	/* 0 for --export */
	unsigned int index;	/* position in the set, from 0 */
};

struct nfsx_exports;

/**
 * exports_new() - an empty set, for --export options without a file.
 *
 * Return values:
 * The set, or NULL when memory is short.
 */
struct nfsx_exports *exports_new(void);

/**
 * exports_parse_file() - read and parse an exports file.
 * @path: the file, in exports(5) syntax.
 * @err: receives the message on failure, "PATH:LINE: message".
 * @errlen: size of @err.
 *
 * See exports_parse_string() for the syntax.
 *
 * Return values:
 * The set (free with exports_free()), or NULL on any error: the file
 * cannot be read, a syntax or option error, out of memory.
 */
struct nfsx_exports *exports_parse_file(const char *path, char *err,
					size_t errlen);

/**
 * exports_parse_string() - parse exports(5) text held in memory.
 * @text: NUL-terminated text, lines separated by '\n'.
 * @name: the name used in messages, as a file name would be.
 * @err: receives the message on failure, "NAME:LINE: message".
 * @errlen: size of @err.
 *
 * Syntax (as exports(5)): one export per line,
 * "PATH [-DEFAULT_OPTIONS] [CLIENT[(OPTIONS)]]...". PATH may be quoted
 * ("...") and may hold \NNN octal escapes. "-OPTIONS" right after the
 * path applies to the clients that follow; a client's own options are
 * applied on top. CLIENT is *, a host name, a host name pattern
 * (*.example.com, with * ? and [...]), an IPv4 or IPv6 address, or a
 * network (a.b.c.d/len, a.b.c.d/netmask, ipv6/len). @netgroups are
 * refused. A line without clients exports to * and leaves a warning.
 * '#' at the start of a word starts a comment; a backslash ending a
 * line joins it to the next (a comment too: as in C).
 *
 * Return values:
 * The set (free with exports_free()), or NULL on any error.
 */
struct nfsx_exports *exports_parse_string(const char *text, const char *name,
					  char *err, size_t errlen);

/**
 * exports_add_quick() - add one --export DIR[:OPTIONS].
 * @ex: the set to add to.
 * @arg: DIR, or DIR:OPTIONS with OPTIONS as in exports(5) (the first
 *       ':' ends DIR). The client is *.
 * @err: receives the message on failure, "--export \"ARG\": message".
 * @errlen: size of @err.
 *
 * The options are parsed by the same code as the file's, and the same
 * checks apply against the exports already in @ex (duplicate path, fsid).
 *
 * Return values:
 * 0 on success; -1 on error, @ex unchanged.
 */
int exports_add_quick(struct nfsx_exports *ex, const char *arg, char *err,
		      size_t errlen);

/**
 * exports_free() - free a set; NULL is ignored.
 * @ex: the set.
 */
void exports_free(struct nfsx_exports *ex);

/**
 * exports_count() - number of exports in the set.
 * @ex: the set.
 *
 * Return values:
 * The count, 0 to EXPORTS_MAX.
 */
unsigned int exports_count(const struct nfsx_exports *ex);

/**
 * exports_next() - iterate over the exports in the order written
 * (file first, then --export options), e.g. for MOUNT EXPORT.
 * @ex: the set.
 * @prev: NULL for the first export, else the one returned last.
 *
 * The export's path is e->path; its clients' specs e->clients[i].spec.
 * Exports stay where they are until exports_free(), also when
 * exports_add_quick() adds more.
 *
 * Return values:
 * The next export, or NULL after the last.
 */
const struct nfsx_export *exports_next(const struct nfsx_exports *ex,
				       const struct nfsx_export *prev);

/**
 * exports_find_path() - the export of a path.
 * @ex: the set.
 * @path: an absolute path, normalised as export paths are (so "/srv/"
 *        and "/srv//." find "/srv"); no prefix matching.
 *
 * Return values:
 * The export, or NULL when none has exactly this path (or @path is
 * not a valid absolute path).
 */
const struct nfsx_export *exports_find_path(const struct nfsx_exports *ex,
					    const char *path);

/**
 * exports_find_id() - the export with a given id (from a file handle).
 * @ex: the set.
 * @id: the export's id.
 *
 * Return values:
 * The export, or NULL.
 */
const struct nfsx_export *exports_find_id(const struct nfsx_exports *ex,
					  uint32_t id);

/**
 * exports_warning_count() - how many warnings the set's parsing left.
 * @ex: the set.
 *
 * Warnings are worth logging: a line without a client list, an option
 * accepted but ignored, a client listed twice. At most
 * EXPORTS_MAX_WARNINGS are kept (the last one then says so).
 *
 * Return values:
 * The count.
 */
unsigned int exports_warning_count(const struct nfsx_exports *ex);

/**
 * exports_warning() - one warning, "NAME:LINE: message".
 * @ex: the set.
 * @i: from 0 to exports_warning_count() - 1.
 *
 * Return values:
 * The message, or NULL when @i is out of range.
 */
const char *exports_warning(const struct nfsx_exports *ex, unsigned int i);

/**
 * exports_match() - the client rule of an export that applies to a peer.
 * @e: the export.
 * @peer: the peer's address (AF_INET or AF_INET6), or NULL.
 * @peer_hostname: the peer's name as the caller resolved it (reverse
 *                 lookup, then checked forward), or NULL when unknown.
 *
 * Rules are tried in the order written and the first that matches wins,
 * as in Linux: putting the more specific rules first is the admin's job.
 * An IPv4-mapped IPv6 peer (::ffff:a.b.c.d) is taken as the IPv4 peer
 * it is, so the answer does not depend on the socket's family; IPv6
 * rules inside ::ffff:0:0/96 were turned into IPv4 rules when parsed.
 * Host name rules compare case-insensitively against @peer_hostname and
 * never match when it is NULL; this module does no DNS.
 *
 * Return values:
 * The matching rule, or NULL when none matches (access denied).
 */
const struct nfsx_export_client *
exports_match(const struct nfsx_export *e, const struct sockaddr_storage *peer,
	      const char *peer_hostname);

/**
 * exports_match_needs_name() - would the peer's host name change which
 * rule of an export applies?
 * @e: the export.
 * @peer: the peer's address, or NULL.
 *
 * True when, trying the rules in order, a host name or pattern rule
 * comes before any rule the address alone matches: only then is the
 * name worth looking up (a reverse lookup may block on DNS). Reads the
 * rules only, like exports_match().
 *
 * Return values:
 * true when exports_match() should be given the peer's name.
 */
bool exports_match_needs_name(const struct nfsx_export *e,
			      const struct sockaddr_storage *peer);

/**
 * exports_squash() - map a caller's credential as the rule says.
 * @c: the rule that matched.
 * @uid: the caller's uid, mapped in place.
 * @gid: the caller's gid, mapped in place.
 * @gids: the caller's supplementary groups, mapped in place; may be
 *        NULL when @ngids is NULL or *@ngids is 0.
 * @ngids: how many in @gids; set to 0 by all_squash. May be NULL.
 *
 * As Linux's nfsd_setuser(): all_squash maps the uid to anonuid, the
 * gid to anongid and clears the groups; otherwise root_squash maps uid
 * 0 to anonuid, gid 0 to anongid, and each 0 in the groups to anongid.
 * Then a uid or gid of 0xffffffff (invalid) becomes anonuid / anongid
 * whatever the options.
 */
void exports_squash(const struct nfsx_export_client *c, uint32_t *uid,
		    uint32_t *gid, uint32_t *gids, uint32_t *ngids);

/**
 * exports_port_ok() - the "secure" check: is the peer's port allowed?
 * @c: the rule that matched.
 * @peer: the peer's address.
 *
 * Return values:
 * true when the rule says insecure, or the peer's source port is below
 * 1024; false otherwise (also for a NULL @peer or one that is neither
 * AF_INET nor AF_INET6, which has no port to check, under secure).
 */
bool exports_port_ok(const struct nfsx_export_client *c,
		     const struct sockaddr_storage *peer);

/**
 * exports_sec_allows() - may a caller of rule @c use flavour @flavor?
 * @c: the rule that matched.
 * @flavor: the call's flavour (EXPORTS_SEC_*).
 *
 * As knfsd's check_nfsd_access(): a flavour of the sec= list; without
 * sec=, AUTH_SYS and AUTH_NONE (a caller with AUTH_NONE acts as the
 * anonymous user). With sec=sys, AUTH_NONE is refused.
 *
 * Return values:
 * true when allowed.
 */
bool exports_sec_allows(const struct nfsx_export_client *c, uint32_t flavor);

/**
 * exports_sec_list() - the flavours of rule @c, as NFSv4's SECINFO lists
 * them: the sec= list in its order, or without one knfsd's AUTH_SYS,
 * AUTH_NONE.
 * @c: the rule.
 * @out: receives the flavours.
 *
 * Return values:
 * How many, 1 to EXPORTS_MAX_SEC.
 */
unsigned int exports_sec_list(const struct nfsx_export_client *c,
			      uint32_t out[EXPORTS_MAX_SEC]);

/**
 * exports_sec_union() - every flavour some rule of @ex allows, strongest
 * first (knfsd's order: RPCSEC_GSS, AUTH_SYS, AUTH_NONE): what the NFSv4
 * pseudo file system, which leads to all of them, allows.
 * @ex: the set.
 * @out: receives the flavours.
 *
 * Return values:
 * How many, 0 (no export) to EXPORTS_MAX_SEC.
 */
unsigned int exports_sec_union(const struct nfsx_exports *ex,
			       uint32_t out[EXPORTS_MAX_SEC]);

/**
 * exports_sec_name() - the sec= name of @flavor ("sys", "none"), for
 * messages.
 * @flavor: an RPC flavour number.
 *
 * Return values:
 * The name, or "unknown".
 */
const char *exports_sec_name(uint32_t flavor);

#endif
