#!/bin/bash
# SPDX-License-Identifier: MIT
# TAP test of nfsxd's state directory and file handle key at start-up:
# a fresh --state-dir is created 0700 with fh.key 0600 (and nothing
# else left behind); a key that group or others can read (0644), a key
# owned by another uid, a state directory group or others can write,
# a FIFO as fh.key, a parent directory others may write (not sticky)
# and a parent owned by another uid each stop the start with exit
# status 1 and a message on stderr that names the file and the fix (a
# sticky parent, as /tmp, is fine); put right, the same key loads again.
#
# Usage: test_state_dir.sh NFSXD

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
EXP=$WORK/export
ST=$WORK/new/state
mkdir -p "$EXP"

# refuse DESC FIX: nfsxd exits 1 at once, stderr names fh.key or the
# state directory and carries FIX.
refuse() {
	local desc=$1 fix=$2 rc
	pick_port P
	timeout 10 "$NFSXD" --foreground --no-rpcbind --port "$P" \
		--state-dir "$ST" --export "$EXP" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	tap_ok $((rc != 1)) "$desc: exit status 1 (got $rc)"
	grep -qF -e "$fix" "$WORK/err" && grep -qF -e "$ST" "$WORK/err"
	tap_ok $? "$desc: stderr names the path and says '$fix'"
	tap_diag "stderr: $(tail -1 "$WORK/err")"
}

# start_ok DESC: nfsxd starts on the state directory, then stops.
start_ok() {
	pick_port P
	start_nfsxd run --no-rpcbind --port "$P" --state-dir "$ST" --export "$EXP"
	wait_port "$P" 10 "$SERVER_PID"
	tap_ok $? "$1: nfsxd starts" || show_log run
	stop_nfsxd "$SERVER_PID" 5
}

start_ok "fresh state directory $ST"
tap_check "state directory created 0700 (got $(stat -c %a "$ST"))" \
	[ "$(stat -c %a "$ST")" = 700 ]
tap_check "fh.key created 0600, 32 bytes (got $(stat -c '%a %s' "$ST/fh.key"))" \
	[ "$(stat -c '%a %s' "$ST/fh.key")" = "600 32" ]
tap_check "no fh.key.tmp left" [ ! -e "$ST/fh.key.tmp" ]
cp "$ST/fh.key" "$WORK/key.orig"

chmod 644 "$ST/fh.key"
refuse "fh.key mode 0644" "chmod 600 $ST/fh.key"
chmod 600 "$ST/fh.key"

if [ "$(id -u)" -eq 0 ]; then
	chown 65534 "$ST/fh.key"
	refuse "fh.key owned by uid 65534" "owned by uid 65534"
	chown 0 "$ST/fh.key"
else
	tap_skip "fh.key owned by another uid" "not running as root"
fi

chmod 770 "$ST"
refuse "state directory mode 0770" "chmod go-w $ST"
chmod 700 "$ST"

mv "$ST/fh.key" "$WORK/key.aside"
mkfifo "$ST/fh.key"
refuse "a FIFO as fh.key" "not a regular file"
rm -f "$ST/fh.key"
mv "$WORK/key.aside" "$ST/fh.key"

chmod 777 "$WORK/new"
refuse "parent directory mode 0777" "chmod go-w $WORK/new"
chmod 1777 "$WORK/new"
start_ok "parent directory mode 1777 (sticky, as /tmp)"
chmod 755 "$WORK/new"
if [ "$(id -u)" -eq 0 ]; then
	chown 65534 "$WORK/new"
	refuse "parent directory owned by uid 65534" "owned by uid 65534"
	chown 0 "$WORK/new"
else
	tap_skip "parent directory owned by another uid" "not running as root"
fi

start_ok "put right"
cmp -s "$ST/fh.key" "$WORK/key.orig"
tap_ok $? "the same key is kept"

logs_clean
tap_ok $? "no sanitizer report in any nfsxd log"
tap_done
