#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the client-nfs42 tests: libnfsx over NFSv4.2
# (sessions of minor version 2, NFSv4.1's operations inside them,
# READ_PLUS of a sparse file, SEEK, ALLOCATE, DEALLOCATE, CLONE, COPY,
# the xattr operations) against one server, the same checks for each
# (test_client_nfs42 SERVER), one function per server:
#
#   run_nfsxd    nfsxd on a free 127.0.0.1 port; what it does is its row
#                in test_client_nfs42 (an operation it does not do must
#                answer NFS4ERR_NOTSUPP exactly, its data checks then TAP
#                SKIPs saying so): today every one works.
#   run_ganesha  NFS-Ganesha (FSAL VFS) in a private network namespace,
#                as test_nfsx_ganesha.sh starts it; skipped with a message
#                where it is missing. What it answers is test_client_nfs42's
#                row for it.
#
# Tree (the export's directory): sparse.bin (64 KiB of data, a hole, 4 KiB
# of data at 1 MiB + 64 KiB, a hole, 100 bytes at 3 MiB), alloc.bin (1 MiB,
# all hole), dealloc.bin (1 MiB of 'a'), src.bin (1.5 MiB random),
# clone.bin and copy.bin (empty), xattr.txt, small.txt ("small\n").
#
# Usage: run-client-nfs42.sh nfsxd|ganesha NFSXD TEST_CLIENT_NFS42

SERVER=${1:?usage: run-client-nfs42.sh nfsxd|ganesha NFSXD TEST_CLIENT_NFS42}
NFSXD_ARG=${2:-}
TEST=$(realpath "${3:?usage: run-client-nfs42.sh SERVER NFSXD TEST_CLIENT_NFS42}")

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

make_tree() {
	local d=$1
	mkdir -p "$d" || return 1
	head -c 65536 /dev/urandom >"$d/sparse.bin"
	head -c 4096 /dev/urandom | dd of="$d/sparse.bin" bs=4096 seek=$(((1048576 + 65536) / 4096)) \
		conv=notrunc status=none
	head -c 100 /dev/urandom | dd of="$d/sparse.bin" bs=1048576 seek=3 conv=notrunc \
		status=none
	truncate -s 1M "$d/alloc.bin"
	head -c 1048576 /dev/zero | tr '\0' a >"$d/dealloc.bin"
	head -c $((3 * 524288)) /dev/urandom >"$d/src.bin"
	: >"$d/clone.bin"
	: >"$d/copy.bin"
	printf 'x\n' >"$d/xattr.txt"
	printf 'small\n' >"$d/small.txt"
	chmod 777 "$d"
	chmod 666 "$d"/*
}

run_nfsxd() {
	. "$(dirname "$0")/lib.sh"
	need_nfsxd "$NFSXD_ARG"
	chmod 755 "$WORK"
	BASE=$WORK/tree
	make_tree "$BASE" || { echo "Bail out! no tree"; exit 1; }
	pick_port P || { echo "Bail out! no free port"; exit 1; }
	serve nfs42 "$P" --nfs-vers 3,4 --log-level warn \
		--export "$BASE:rw,no_root_squash,insecure"
	local pid=$SERVER_PID
	"$TEST" "$P" "$BASE" "$BASE" nfsxd
	finish $? "nfs42:$pid"
}

run_ganesha() {
	if [ -z "${NFSX_GANESHA_NETNS:-}" ]; then
		[ "$(id -u)" -eq 0 ] || skip_all "needs root (a network namespace, rpcbind, Ganesha)"
		command -v ganesha.nfsd >/dev/null ||
			skip_all "NFS-Ganesha not installed (Debian nfs-ganesha)"
		dpkg-query -W -f='${Status}' nfs-ganesha-vfs 2>/dev/null |
			grep -q "install ok installed" ||
			skip_all "Ganesha's FSAL VFS not installed (Debian nfs-ganesha-vfs)"
		for t in rpcbind unshare ip; do
			command -v "$t" >/dev/null || skip_all "$t not found"
		done
		unshare -n -m -- true 2>/dev/null ||
			skip_all "unshare -n -m not allowed here (a private network namespace is needed)"
		NFSX_GANESHA_NETNS=1 exec unshare -n -m -- bash "$0" "$SERVER" "$NFSXD_ARG" "$TEST"
		echo "Bail out! unshare -n -m failed"
		exit 1
	fi
	. "$(dirname "$0")/lib.sh"
	# as test_nfsx_ganesha.sh: lo up with a second IPv4 address (Ganesha's
	# getaddrinfo wants one), private /run and recovery directory, rpcbind
	ip link set lo up || { echo "Bail out! ip link set lo up"; exit 1; }
	ip addr add 192.0.2.1/32 dev lo || { echo "Bail out! ip addr add"; exit 1; }
	mount --make-rprivate / 2>/dev/null
	mount -t tmpfs nfsx-ganesha-run /run || { echo "Bail out! tmpfs on /run"; exit 1; }
	mkdir -p /run/ganesha /run/rpcbind /var/lib/nfs/ganesha
	mount -t tmpfs nfsx-ganesha-rec /var/lib/nfs/ganesha ||
		{ echo "Bail out! tmpfs on recovery"; exit 1; }
	rpcbind -f -w >"$WORK/rpcbind.log" 2>&1 &
	track_pid $!
	wait_port 111 5 $! || { echo "Bail out! rpcbind did not listen"; exit 1; }
	chmod 755 "$WORK"
	EXP=$WORK/export
	make_tree "$EXP" || { echo "Bail out! no tree"; exit 1; }
	pick_port P || { echo "Bail out! no free port"; exit 1; }
	pick_port M || { echo "Bail out! no free port"; exit 1; }
	cat >"$WORK/ganesha.conf" <<EOF
NFS_CORE_PARAM {
	Bind_addr = 127.0.0.1;
	NFS_Port = $P;
	MNT_Port = $M;
	Protocols = 4;
	Enable_NLM = false;
	Enable_RQUOTA = false;
	Enable_UDP = false;
}
NFSV4 {
	Graceless = true;
	RecoveryBackend = fs;
	Minor_Versions = 1, 2;
}
NFS_KRB5 {
	Active_krb5 = false;
}
EXPORT {
	Export_Id = 1;
	Path = $EXP;
	Pseudo = /export;
	Access_Type = RW;
	Squash = No_Root_Squash;
	Protocols = 4;
	Transports = TCP;
	SecType = sys;
	FSAL {
		Name = VFS;
	}
}
EOF
	ganesha.nfsd -F -f "$WORK/ganesha.conf" -L "$WORK/ganesha.log" -p "$WORK/ganesha.pid" \
		-N NIV_EVENT &
	local gpid=$!
	track_pid "$gpid"
	if ! wait_port "$P" 20 "$gpid"; then
		echo "Bail out! Ganesha did not start listening on 127.0.0.1:$P"
		show_log ganesha
		exit 1
	fi
	# Ganesha may answer DELAY or GRACE for a moment after it listens
	sleep 2
	"$TEST" "$P" "$EXP" /export ganesha
	local rc=$?
	if ! alive "$gpid"; then
		echo "# Ganesha died during the test"
		rc=1
	fi
	[ "$rc" -eq 0 ] || show_log ganesha
	exit "$rc"
}

case "$SERVER" in
nfsxd) run_nfsxd ;;
ganesha) run_ganesha ;;
*) echo "Bail out! unknown server $SERVER"; exit 1 ;;
esac
