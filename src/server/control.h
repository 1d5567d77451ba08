/* SPDX-License-Identifier: MIT */
/*
 * nfsxd's control thread: the statistics on a Unix socket in the state
 * directory (what `nfsx stats` reads) and, with --metrics, over HTTP for
 * Prometheus.
 *
 * DESIGN
 * - Never on the NFS port, and off the event loops: one thread of its
 *   own serves one request at a time (a scrape renders in milliseconds),
 *   each connection with 2 s timeouts so a reader that stalls cannot
 *   hold it longer.
 * - The socket is the state directory's (mode 0700, made so by nfsxd)
 *   and itself mode 0600: only the server's user (and root) reads it.
 * - The HTTP endpoint is off by default and bound to loopback unless an
 *   address is given: statistics name clients and their traffic.
 */
#ifndef NFSX_SERVER_CONTROL_H
#define NFSX_SERVER_CONTROL_H

#include <stdint.h>

#include "server/metrics.h"

#define CONTROL_SOCKET_NAME "control.sock"

struct control;

/*
 * control_start - serve the statistics of @src on STATE_DIR/control.sock
 * and, when @metrics_fd is not -1, on that listening TCP socket as HTTP.
 * Return values: the control thread, or NULL (errno set; the socket
 * could not be made).
 */
struct control *control_start(const char *state_dir, int metrics_fd,
			      const struct metrics_src *src);

/*
 * control_link - name the control socket by the NFS address @addr and
 * @port, for `nfsx stats --server ADDR:PORT`: a symbolic link
 * RUNDIR/ADDR:PORT ([ADDR]:PORT for IPv6; ADDR as inet_ntop(3) writes
 * it) to it, where RUNDIR is
 * $NFSX_RUN_DIR when set, else /run/nfsx for root, else
 * $XDG_RUNTIME_DIR/nfsx when set (else no link). Removed by
 * control_stop. A link that cannot be made is logged, not fatal: the
 * socket is still found by its path.
 */
void control_link(struct control *ctl, const char *addr, uint16_t port);

/* Stop the thread, remove the socket. */
void control_stop(struct control *ctl);

/*
 * control_parse_metrics - ADDR:PORT, [ADDR6]:PORT or PORT (on
 * 127.0.0.1) of --metrics into @addr (INET6_ADDRSTRLEN bytes) and @port.
 * Return values: 0, or -1 when malformed.
 */
int control_parse_metrics(const char *arg, char *addr, uint16_t *port);

#endif
