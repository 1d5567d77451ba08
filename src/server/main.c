/* SPDX-License-Identifier: MIT */
/*
 * nfsxd: start-up, rpcbind mode, daemonising, signals, orderly stop.
 *
 * Signals are blocked in every thread and taken by the main thread with
 * sigtimedwait(), so handlers never run inside the event loops; between
 * signals, every SWEEP_SECONDS, it closes cached objects that were
 * removed behind the server's back (vfs_nodes_sweep_removed). SIGHUP
 * reloads the exports there: the file is parsed and checked whole, and
 * only a valid set replaces the one in use (nfs3_exports_replace()).
 *
 * Under systemd (Type=notify; NOTIFY_SOCKET set) the service manager is
 * told READY=1 once every socket listens and the loops run, RELOADING=1
 * and READY=1 around each reload, and STOPPING=1 on SIGTERM/SIGINT.
 * libsystemd's sd_notify() does it (a no-op without NOTIFY_SOCKET) rather
 * than a copy of its datagram protocol, whose address forms (abstract,
 * vsock) the library keeps up with.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "nfs3/nfs3.h"
#include "nfs4/nfs4.h"
#include "rpc/drc.h"
#include "rpc/req.h"
#include "rpc/svc.h"
#include "rpc/workers.h"
#include "rpcbind/client.h"
#include "rpcbind/map.h"
#include "rpcbind/service.h"
#include "export/exports.h"
#include "server/hostnames.h"
#include "server/control.h"
#include "server/options.h"
#include "server/programs.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/stats.h"
#include "vfs/dir.h"
#include "vfs/lease.h"
#include "vfs/node.h"

#define STOP_GRACE_MS 5000
/* How often cached objects removed behind the server's back are closed
 * (vfs_nodes_sweep_removed). */
#define SWEEP_SECONDS 2

enum rpcb_mode {
	RPCB_NONE,
	RPCB_EMBEDDED,
	RPCB_REGISTERED,
	RPCB_FAILED,	/* some registrations refused: remove those that took */
};

static int ensure_state_dir(const char *dir)
{
	char path[4096];
	size_t i, n = strlen(dir);

	if (n == 0 || n >= sizeof(path)) {
		log_error("--state-dir: bad path");
		return -1;
	}
	memcpy(path, dir, n + 1);
	/* mkdir -p, the last component 0700 */
	for (i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != 0)
			continue;
		path[i] = 0;
		if (mkdir(path, i == n ? 0700 : 0755) < 0 && errno != EEXIST) {
			log_error("cannot create state directory %s: %s", path,
				  strerror(errno));
			return -1;
		}
		path[i] = i == n ? 0 : '/';
	}
	if (access(dir, W_OK | X_OK) < 0) {
		log_error("state directory %s is not writable: %s (use --state-dir)",
			  dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The exports: the file first, then each --export, with the same parser
 * and checks. Every export directory must exist now.
 * Return values: the set, or NULL after logging why.
 */
static struct nfsx_exports *load_exports(const struct nfsxd_opts *o)
{
	struct nfsx_exports *ex;
	const struct nfsx_export *e = NULL;
	char err[512];
	unsigned int i;

	ex = o->exports_file ? exports_parse_file(o->exports_file, err, sizeof(err))
			     : exports_new();
	if (!ex) {
		log_error("%s", o->exports_file ? err : "out of memory");
		return NULL;
	}
	for (i = 0; i < o->nexports; i++) {
		if (exports_add_quick(ex, o->exports[i], err, sizeof(err)) < 0) {
			log_error("%s", err);
			exports_free(ex);
			return NULL;
		}
	}
	for (i = 0; i < exports_warning_count(ex); i++)
		log_warn("%s", exports_warning(ex, i));
	while ((e = exports_next(ex, e))) {
		struct stat st;

		if (stat(e->path, &st) < 0 || !S_ISDIR(st.st_mode)) {
			log_error("export %s: not a directory", e->path);
			exports_free(ex);
			return NULL;
		}
	}
	if (!exports_count(ex))
		log_warn("no exports: MOUNT will refuse every path (use --export DIR)");
	return ex;
}

/*
 * SIGHUP: the exports file again, with the --export options of the
 * command line; the exports in use stay when anything is wrong.
 */
static void reload_exports(const struct nfsxd_opts *o)
{
	struct export_reload_stats st;
	struct nfsx_exports *ex;
	char err[512];

	log_info("SIGHUP: reloading the exports%s%s", o->exports_file ? " from " : "",
		 o->exports_file ? o->exports_file : "");
	ex = load_exports(o);	/* logs what is wrong, FILE:LINE first */
	if (!ex) {
		log_error("exports not reloaded: the exports in use are kept");
		return;
	}
	if (nfs3_exports_replace(ex, &st, err, sizeof(err)) < 0) {
		log_error("%s", err);
		log_error("exports not reloaded: the exports in use are kept");
		return;
	}
	if (st.reopened)
		log_info("exports reloaded: %u exports (+%u -%u), %u reopened (new fsid or directory)",
			 st.exports, st.added, st.removed, st.reopened);
	else
		log_info("exports reloaded: %u exports (+%u -%u)", st.exports,
			 st.added, st.removed);
}

/* sd_notify(3): RELOADING=1 carries the time the reload started. */
static void notify_reloading(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		   (unsigned long long)ts.tv_sec * 1000000ull +
		   (unsigned long long)ts.tv_nsec / 1000);
}

static struct hostnames *names;

/* A call parked until its peer's name is known. */
struct name_wait {
	struct hostnames_waiter w;
	struct rpc_req *req;
};

static void name_known(struct hostnames_waiter *w)
{
	rpc_workers_resume(((struct name_wait *)w)->req);
}

/*
 * Host name rules (export_match, on workers only): verified names from the
 * cache; a name not known yet parks the call until the resolvers answer
 * or give up (hostnames.h), so that no worker waits on DNS. The waiter
 * lives in the call's arena: the handler's allocations are undone when
 * it parks, but nothing reuses them before the call runs again.
 */
static bool peer_name(struct rpc_req *req, char *name, size_t len)
{
	char buf[HOSTNAMES_NAME_MAX];
	enum hostnames_answer a;
	struct name_wait *nw = NULL;

	/* Parked already in this run (RENAME's second handle, a crossing):
	 * one waiter resumes it; the handler stops (export_match). */
	if (req->workers && !req->on_loop && rpc_workers_parked(req))
		return false;
	if (req->workers && !req->on_loop)
		nw = xdr_arena_alloc(&req->arena, sizeof(*nw));
	if (nw) {
		nw->w.fn = name_known;
		nw->req = req;
		rpc_workers_park(req);
	}
	a = hostnames_get(names, req->peer, buf, nw ? &nw->w : NULL);
	if (a == HOSTNAMES_PENDING && nw)
		return false;	/* parked: name_known() resumes it */
	if (nw)
		rpc_workers_unpark(req);
	if (a != HOSTNAMES_NAMED || strlen(buf) >= len)
		return false;
	memcpy(name, buf, strlen(buf) + 1);
	return true;
}

/*
 * A relative exports file is made absolute: a daemon changes to "/"
 * and reads the file again on SIGHUP.
 * Return values: 0, or -1 after logging why.
 */
static int absolute_exports_file(struct nfsxd_opts *o, char *buf, size_t len)
{
	char cwd[4096];

	if (!o->exports_file || o->exports_file[0] == '/')
		return 0;
	if (!getcwd(cwd, sizeof(cwd)) ||
	    (size_t)snprintf(buf, len, "%s/%s", cwd, o->exports_file) >= len) {
		log_error("--exports-file %s: cannot make the path absolute",
			  o->exports_file);
		return -1;
	}
	o->exports_file = buf;
	return 0;
}

static const char *netid_of(const char *addr)
{
	return strchr(addr, ':') ? "tcp6" : "tcp";
}

/* The embedded rpcbind's own table: our programs and itself, on each
 * bind address (one mapping per netid: the first address of a family). */
static void map_own(const struct rpc_registry *reg, const struct nfsxd_opts *o)
{
	unsigned int b, i, j;

	for (b = 0; b < o->nbind; b++) {
		for (i = 0; i < reg->n; i++) {
			const struct rpc_program *p = reg->progs[i];
			uint16_t port = p->prog == RPCB_PROG ? o->rpcbind_port : o->port;

			for (j = 0; j < p->nvers; j++) {
				struct rpcb_mapping m = { .prog = p->prog,
							  .vers = p->versions[j].vers };

				snprintf(m.netid, sizeof(m.netid), "%s", netid_of(o->bind[b]));
				uaddr_make(o->bind[b], port, m.uaddr, sizeof(m.uaddr));
				snprintf(m.owner, sizeof(m.owner), "superuser");
				rpcb_map_set(&m);
			}
		}
	}
}

/* Registrations nfsxd made, so that it removes only its own at exit. */
#define MAX_VERS 8
static bool registered[RPC_MAX_PROGRAMS][MAX_VERS];

/* An external rpcbind answers on the rpcbind port: (un)register there. */
static int register_remote(const struct rpc_registry *reg,
			   const struct nfsxd_opts *o, bool unset)
{
	/* With a system rpcbind, the first bind address is registered. */
	const char *rpcb_ip = strchr(o->bind[0], ':') ? "::1" : "127.0.0.1";
	unsigned int i, j;
	int failures = 0;

	for (i = 0; i < reg->n; i++) {
		const struct rpc_program *p = reg->progs[i];

		for (j = 0; j < p->nvers && j < MAX_VERS; j++) {
			char err[160];
			int r;

			if (unset && !registered[i][j])
				continue;
			r = rpcb_client_set(rpcb_ip, o->rpcbind_port, p->prog,
					    p->versions[j].vers, o->bind[0], o->port,
					    unset, err, sizeof(err));
			if (unset)
				continue;
			if (r == 1) {
				registered[i][j] = true;
				log_info("registered %s version %u (program %u) with rpcbind on port %u",
					 p->name, p->versions[j].vers, p->prog,
					 o->rpcbind_port);
			} else if (r == 0) {
				failures++;
				log_error("rpcbind on port %u refused to register %s version %u (program %u): another server has it registered; clients must name port %u",
					  o->rpcbind_port, p->name,
					  p->versions[j].vers, p->prog, o->port);
			} else {
				failures++;
				log_error("cannot register %s version %u with rpcbind on port %u: %s",
					  p->name, p->versions[j].vers,
					  o->rpcbind_port, err);
			}
		}
	}
	return failures ? -1 : 0;
}

static int listen_or_explain(const char *addr, uint16_t port, const char *what)
{
	int fd = rpc_listen_tcp(addr, port);

	if (fd < 0) {
		if (errno == EINVAL)
			log_error("--bind %s: not an IPv4 or IPv6 address", addr);
		else
			log_error("cannot listen for %s on %s port %u: %s%s", what,
				  addr, port, strerror(errno),
				  errno == EADDRINUSE ? " (another server runs there? use --port)" : "");
	}
	return fd;
}

/*
 * Detach; the parent exits only once the child reports it is serving,
 * so a failure after the fork still reaches the caller's exit status.
 */
static int daemonize(int *ready_fd)
{
	int pfd[2], null;
	pid_t pid;
	char c;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(pfd[1]);
		_exit(read(pfd[0], &c, 1) == 1 && c == 0 ? 0 : 1);
	}
	close(pfd[0]);
	setsid();
	if (chdir("/") < 0)
		return -1;
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	nfsx_log_use_syslog();
	*ready_fd = pfd[1];
	return 0;
}

int main(int argc, char **argv)
{
	struct rpc_registry reg = { 0 };
	struct rpc_server_config cfg;
	struct rpc_server *srv = NULL;
	struct rpc_drc *drc = NULL;
	struct metrics_src msrc = { 0 };
	struct control *ctl = NULL;
	int metrics_fd = -1;
	enum rpcb_mode mode = RPCB_NONE;
	struct nfsxd_opts o;
	int lfd[NFSXD_MAX_BINDS], rpcb_fd[NFSXD_MAX_BINDS], ready_fd = -1, r;
	unsigned int b, nrpcb = 0;
	char binds[NFSXD_MAX_BINDS * 48] = "";
	struct nfsx_exports *exports;
	struct hostnames_config hcfg;
	char errbuf[512], exports_path[4096];
	unsigned int nexports;
	sigset_t sigs;

	r = nfsxd_parse_options(argc, argv, &o);
	if (r)
		return r > 0 ? 0 : 2;
	nfsx_log_threshold = o.log_level;
	stats_set_enabled(o.stats);
	/* before any thread reads the clock */
	(void)clock_init();
	if (absolute_exports_file(&o, exports_path, sizeof(exports_path)) < 0)
		return 1;
	if (ensure_state_dir(o.state_dir) < 0)
		return 1;
	exports = load_exports(&o);
	if (!exports)
		return 1;
	nexports = exports_count(exports);
	if (vfs_dir_init(o.dir_cache_bytes) < 0)
		log_warn("no inotify instance (%s): directory listings are not cached",
			 strerror(errno));
	if (nfs3_init(exports, o.state_dir, errbuf, sizeof(errbuf)) < 0) {
		log_error("%s", errbuf);
		return 1;
	}
	if (o.nfs4 && nfs4_init(o.lease_time, o.state_dir, errbuf, sizeof(errbuf)) < 0) {
		log_error("NFSv4: %s", errbuf);
		return 1;
	}
	if (o.nfs4)
		nfs4_set_delegations(o.delegations);
	/* Before any thread exists, so that every thread inherits the mask:
	 * a signal the main thread does not wait for in sigwaitinfo goes to
	 * a thread that does not block it, whose default action for
	 * SIGTERM or SIGHUP ends the whole process. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	server_programs_nfs4(o.nfs4);
	if (server_programs_add(&reg) < 0) {
		log_error("cannot build the NFS and MOUNT program tables");
		return 1;
	}

	for (b = 0; b < o.nbind; b++) {
		lfd[b] = listen_or_explain(o.bind[b], o.port, "NFS");
		if (lfd[b] < 0)
			return 1;
		snprintf(binds + strlen(binds), sizeof(binds) - strlen(binds), "%s%s",
			 b ? ", " : "", o.bind[b]);
	}
	/* The first bind address decides: embedded rpcbind, or register
	 * with the one running; an embedded rpcbind listens on each. */
	for (b = 0; b < o.nbind && !o.no_rpcbind; b++) {
		int fd = rpc_listen_tcp(o.bind[b], o.rpcbind_port);

		if (fd >= 0 && (b == 0 || mode == RPCB_EMBEDDED)) {
			mode = RPCB_EMBEDDED;
			rpcb_fd[nrpcb++] = fd;
			continue;
		}
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (b == 0 && errno == EADDRINUSE) {
			mode = RPCB_REGISTERED;
		} else if (b == 0 || mode == RPCB_EMBEDDED) {
			log_warn("cannot serve rpcbind on %s port %u: %s; %s",
				 o.bind[b], o.rpcbind_port, strerror(errno),
				 b ? "rpcbind is served on the other addresses" :
				 "running without rpcbind, clients must name the port");
			if (b == 0)
				break;
		}
	}
	if (mode == RPCB_EMBEDDED) {
		rpc_registry_add(&reg, &rpcb_program);
		map_own(&reg, &o);
	}

	drc = rpc_drc_create(o.drc_size);
	rpc_server_config_defaults(&cfg);
	cfg.threads = o.threads;
	cfg.max_record = o.max_record;
	cfg.max_inflight = o.max_inflight;
	cfg.max_unsent = o.max_unsent;
	cfg.max_conns = o.max_conns;
	cfg.workers = o.workers;
	cfg.slice_us = o.slice_us;
	cfg.busy_poll_us = o.busy_poll_us;
	cfg.max_conn_bytes = o.max_conn_bytes;
	cfg.max_total_bytes = o.max_total_bytes;
	cfg.idle_timeout_s = o.idle_timeout_s;
	cfg.max_conns_per_client = o.max_conns_per_client;
	srv = drc ? rpc_server_create(&cfg, &reg, drc) : NULL;
	if (!srv) {
		log_error("out of memory");
		return 1;
	}
	if (o.metrics_port) {
		metrics_fd = rpc_listen_tcp(o.metrics_addr, o.metrics_port);
		if (metrics_fd < 0) {
			log_error("--metrics: cannot listen on %s port %u: %s", o.metrics_addr,
				  o.metrics_port, strerror(errno));
			return 1;
		}
	}
	r = 0;
	for (b = 0; b < o.nbind; b++)
		r |= rpc_server_add_listener(srv, lfd[b]);
	for (b = 0; b < nrpcb; b++)
		r |= rpc_server_add_listener(srv, rpcb_fd[b]);
	if (r < 0) {
		log_error("too many listening sockets");
		return 1;
	}
	if (!o.foreground && daemonize(&ready_fd) < 0) {
		log_error("cannot detach: %s", strerror(errno));
		return 1;
	}
	/* After the fork: its resolver threads, and NFSv4.0's callback
	 * thread, must be the daemon's (a fork keeps only the caller). */
	hostnames_config_defaults(&hcfg);
	names = hostnames_new(&hcfg);
	if (!names) {
		log_error("out of memory");
		return 1;
	}
	if (o.nfs4 && nfs4_callbacks_start() < 0) {
		log_error("cannot start the NFSv4 callback thread: %s", strerror(errno));
		return 1;
	}
	export_set_peer_name_fn(peer_name);
	/* every row made (programs, NFSv4 operations): counting starts */
	stats_start();
	if (rpc_server_start(srv) < 0) {
		log_error("cannot start event loops: %s", strerror(errno));
		return 1;
	}
	msrc.srv = srv;
	msrc.drc = drc;
	msrc.nfs4 = o.nfs4;
	msrc.start_time = (double)time(NULL);
	msrc.binds = o.bind;
	msrc.nbinds = o.nbind;
	msrc.port = o.port;
	ctl = control_start(o.state_dir, metrics_fd, &msrc);
	if (!ctl) {
		log_error("cannot make the control socket %s/%s: %s", o.state_dir,
			  CONTROL_SOCKET_NAME, strerror(errno));
		return 1;
	}
	for (b = 0; b < o.nbind; b++)
		control_link(ctl, o.bind[b], o.port);
	if (mode == RPCB_REGISTERED && register_remote(&reg, &o, false) < 0)
		mode = RPCB_FAILED;

	log_info("nfsxd %s listening on %s port %u (NFS %s, MOUNT 3), %u export(s), rpcbind: %s",
		 NFSX_VERSION, binds, o.port, o.nfs4 ? "3, 4.0, 4.1 and 4.2" : "3", nexports,
		 mode == RPCB_EMBEDDED ? "embedded" :
		 mode == RPCB_REGISTERED ? "registered with the system rpcbind" :
		 mode == RPCB_FAILED ? "registration with the system rpcbind failed (see above)" :
		 "none");
	if (ready_fd >= 0) {
		char ok = 0;

		if (write(ready_fd, &ok, 1) < 0)
			log_warn("cannot signal readiness to the parent");
		close(ready_fd);
	}
	sd_notify(0, "READY=1");

	for (;;) {
		siginfo_t si;
		int sig = sigtimedwait(&sigs, &si, &(struct timespec){ SWEEP_SECONDS, 0 });

		if (sig < 0) {
			unsigned int n = vfs_nodes_sweep_removed();

			if (o.nfs4)
				nfs4_sweep();
			if (n)
				log_debug("closed %u cached object(s) removed meanwhile", n);
			continue;
		}
		if (sig == SIGHUP) {
			notify_reloading();
			reload_exports(&o);	/* kept or replaced: ready again */
			sd_notify(0, "READY=1");
			continue;
		}
		if (sig == SIGTERM || sig == SIGINT) {
			log_info("%s: finishing calls in progress and stopping",
				 sig == SIGTERM ? "SIGTERM" : "SIGINT");
			sd_notify(0, "STOPPING=1");
			break;
		}
	}
	if (mode == RPCB_REGISTERED || mode == RPCB_FAILED)
		register_remote(&reg, &o, true);
	/* Parked calls run again now (as if their peers had no name):
	 * the workers must not stop with calls parked. */
	hostnames_stop(names);
	control_stop(ctl);
	rpc_server_stop(srv, STOP_GRACE_MS);
	rpc_server_destroy(srv);
	/* every call has ended: a mark left is a path that forgot its end
	 * (the tests' log check looks for "internal error") */
	if (vfs_changes_held())
		log_error("internal error: %u file-change mark(s) never ended (vfs/lease.h)",
			  vfs_changes_held());
	rpc_drc_destroy(drc);
	rpcb_map_clear();
	nfs3_fini();
	if (o.nfs4)
		nfs4_fini();
	vfs_dir_fini();
	hostnames_free(names);
	log_info("stopped");
	return 0;
}
