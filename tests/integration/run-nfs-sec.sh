#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the nfs-sec test (sec= per export on the wire: NFSv3,
# MOUNT, NFSv4.0 and 4.1): builds the tree in the scratch directory,
# checks that nfsxd refuses to start on an exports file asking for
# Kerberos (naming the line) and that a reload asking for it keeps the
# exports in use, starts two nfsxd with --nfs-vers 3,4 on free 127.0.0.1
# ports and runs test_nfs_sec PORT PORT2 BASE REFUSED RELOAD_KEPT CHILD (its
# TAP output is this test's output), then stops them.
#
# Tree (BASE = $WORK/tree), exported rw,insecure to 127.0.0.1 by the
# first server:
#   sys/   sec=sys          f, d/
#   none/  sec=none         f, d/
#   both/  sec=sys:none     f, d/
#   nsys/  sec=none:sys     f, d/
#   dflt/  (no sec=)        f, d/
#   sys/child/  a tmpfs exported nohide with sec=none (as root, where
#               mounting works; else the test skips what needs it)
# The second server exports only/ with sec=sys and nothing else.
#
# Usage: run-nfs-sec.sh NFSXD TEST_NFS_SEC

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-nfs-sec.sh NFSXD TEST_NFS_SEC}")

chmod 755 "$WORK"
BASE=$WORK/tree
for d in sys none both nsys dflt only; do
	mkdir -p "$BASE/$d/d" || exit 1
	printf '%s\n' "$d" >"$BASE/$d/f"
done
chmod -R a+rX "$BASE"

cat >"$WORK/exports1" <<EOT
$BASE/sys 127.0.0.1(rw,insecure,sec=sys)
$BASE/none 127.0.0.1(rw,insecure,sec=none)
$BASE/both 127.0.0.1(rw,insecure,sec=sys:none)
$BASE/nsys 127.0.0.1(rw,insecure,sec=none:sys)
$BASE/dflt 127.0.0.1(rw,insecure)
EOT
# sys/child: a tmpfs exported nohide with sec=none, when this may mount
CHILD=0
if [ "$(id -u)" -eq 0 ] && mkdir -p "$BASE/sys/child" &&
	mount -t tmpfs -o size=1m,mode=755 tmpfs "$BASE/sys/child" 2>/dev/null; then
	at_cleanup "umount -l '$BASE/sys/child'"
	echo c >"$BASE/sys/child/c"
	echo "$BASE/sys/child 127.0.0.1(rw,insecure,nohide,sec=none)" >>"$WORK/exports1"
	CHILD=1
fi
cat >"$WORK/exports2" <<EOT
$BASE/only 127.0.0.1(rw,insecure,sec=sys)
EOT
# the first file with Kerberos asked for on line 2
sed '2s/sec=none/sec=krb5p/' "$WORK/exports1" >"$WORK/exports-krb5"

pick_port P || { echo "Bail out! no free port"; exit 1; }
pick_port P2 || { echo "Bail out! no free port"; exit 1; }

# Kerberos asked for: no start (exit status 1), the line named.
REFUSED=0
start_nfsxd refused --no-rpcbind --port "$P" --bind 127.0.0.1 --nfs-vers 3,4 \
	--exports-file "$WORK/exports-krb5"
RPID=$SERVER_PID
for ((i = 0; i < 100; i++)); do
	alive "$RPID" || break
	sleep 0.1
done
if alive "$RPID"; then
	echo "# nfsxd started on an exports file with sec=krb5p"
	stop_nfsxd "$RPID"
else
	wait "$RPID"
	rc=$?
	forget_pid "$RPID"
	if [ "$rc" -eq 1 ] && grep -q "exports-krb5:2: \"sec=krb5p\": krb5p needs RPCSEC_GSS" \
		"$WORK/refused.log"; then
		REFUSED=1
	else
		echo "# exit status $rc; log:"
		tap_diag <"$WORK/refused.log"
	fi
fi

serve v4only "$P2" --log-level warn --nfs-vers 3,4 --exports-file "$WORK/exports2"
PID2=$PID
serve v4 "$P" --log-level info --nfs-vers 3,4 --exports-file "$WORK/exports1"

# A reload asking for Kerberos is refused and the exports in use stay
# (the test then finds none/ served with sec=none).
KEPT=0
cp "$WORK/exports1" "$WORK/exports1.good"
cp "$WORK/exports-krb5" "$WORK/exports1"
kill -HUP "$PID"
for ((i = 0; i < 50; i++)); do
	if grep -q "exports not reloaded: the exports in use are kept" "$WORK/v4.log"; then
		grep -q "exports1:2: \"sec=krb5p\": krb5p needs RPCSEC_GSS" "$WORK/v4.log" && KEPT=1
		break
	fi
	sleep 0.1
done
cp "$WORK/exports1.good" "$WORK/exports1"

"$TEST" "$P" "$P2" "$BASE" "$REFUSED" "$KEPT" "$CHILD"
finish $? "v4:$PID" "v4only:$PID2"
