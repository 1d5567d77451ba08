#!/bin/bash
# SPDX-License-Identifier: MIT
# TAP integration test of libnfsx and the nfsx tool against another
# server: NFS-Ganesha (FSAL VFS) serving NFSv3, NFSv4.1 and NFSv4.2 on free
# 127.0.0.1 ports. Over NFSv4.1, NFSv4.2 (?version=4.1, 4.2, and ?version=4,
# the highest both speak: 4.2): put, get, cat, cp
# (nfs->nfs), ls, stat, mkdir -p, rm -r, mv, ln, chmod, ls -l of a
# symbolic link, compared by sha256 and stat with the export's files on
# disk and with what NFSv3 shows of them.
#
# Ganesha will not start unless it can register with rpcbind, and Debian's
# rpcbind listens on every interface; so, as bench/vs-ganesha, the test
# re-runs itself in a private network namespace holding only lo (unshare
# -n -m), with private tmpfs mounts on /run and on Ganesha's recovery
# directory: no port of the host is taken, nothing it writes stays, and
# no packet can leave the machine.
#
# Skipped with a message when not root, when nfs-ganesha, nfs-ganesha-vfs,
# rpcbind, unshare or ip is missing, or when no network namespace can be
# made. Found by it: NFS-Ganesha's NFSv4 handles are longer than NFSv3's
# 64 bytes (libnfsx held no more).
#
# Usage: test_nfsx_ganesha.sh NFSXD NFSX   (NFSXD is not used)

NFSX=$(realpath "${2:?usage: test_nfsx_ganesha.sh NFSXD NFSX}")

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

if [ -z "${NFSX_GANESHA_NETNS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || skip_all "needs root (a network namespace, rpcbind, Ganesha)"
	command -v ganesha.nfsd >/dev/null || skip_all "NFS-Ganesha not installed (Debian nfs-ganesha)"
	dpkg-query -W -f='${Status}' nfs-ganesha-vfs 2>/dev/null | grep -q "install ok installed" ||
		skip_all "Ganesha's FSAL VFS not installed (Debian nfs-ganesha-vfs)"
	for t in rpcbind unshare ip; do
		command -v "$t" >/dev/null || skip_all "$t not found"
	done
	unshare -n -m -- true 2>/dev/null ||
		skip_all "unshare -n -m not allowed here (a private network namespace is needed)"
	NFSX_GANESHA_NETNS=1 exec unshare -n -m -- bash "$0" "$@"
	echo "Bail out! unshare -n -m failed"
	exit 1
fi

. "$(dirname "$0")/lib.sh"

# The namespace: lo up; glibc's getaddrinfo (AI_ADDRCONFIG, which Ganesha
# uses for Bind_addr) refuses 127.0.0.1 unless another IPv4 address
# exists, so lo gets a documentation-range one, in this namespace only.
ip link set lo up || { echo "Bail out! ip link set lo up"; exit 1; }
ip addr add 192.0.2.1/32 dev lo || { echo "Bail out! ip addr add"; exit 1; }
mount --make-rprivate / 2>/dev/null
mount -t tmpfs nfsx-ganesha-run /run || { echo "Bail out! tmpfs on /run"; exit 1; }
mkdir -p /run/ganesha /run/rpcbind /var/lib/nfs/ganesha
mount -t tmpfs nfsx-ganesha-rec /var/lib/nfs/ganesha || { echo "Bail out! tmpfs on recovery"; exit 1; }

rpcbind -f -w >"$WORK/rpcbind.log" 2>&1 &
track_pid $!
wait_port 111 5 $! || { echo "Bail out! rpcbind did not listen"; exit 1; }

chmod 755 "$WORK"
EXP=$WORK/export
LOC=$WORK/local
mkdir -p "$EXP/dir" "$LOC"
chmod 777 "$EXP"
printf 'served by ganesha\n' >"$EXP/served.txt"
printf 'inner\n' >"$EXP/dir/inner.txt"
head -c $((3 * 1024 * 1024 + 4321)) /dev/urandom >"$LOC/big.bin"

pick_port P || { echo "Bail out! no free port"; exit 1; }
pick_port M || { echo "Bail out! no free port"; exit 1; }
cat >"$WORK/ganesha.conf" <<EOF
NFS_CORE_PARAM {
	Bind_addr = 127.0.0.1;
	NFS_Port = $P;
	MNT_Port = $M;
	Protocols = 3, 4;
	Enable_NLM = false;
	Enable_RQUOTA = false;
	Enable_UDP = false;
	Mount_Path_Pseudo = true;
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
	Protocols = 3, 4;
	Transports = TCP;
	SecType = sys;
	FSAL {
		Name = VFS;
	}
}
EOF
ganesha.nfsd -F -f "$WORK/ganesha.conf" -L "$WORK/ganesha.log" -p "$WORK/ganesha.pid" \
	-N NIV_EVENT &
GPID=$!
track_pid $GPID
if ! wait_port "$P" 20 "$GPID"; then
	echo "Bail out! Ganesha did not start listening on 127.0.0.1:$P"
	show_log ganesha
	exit 1
fi

sum() { sha256sum <"$1" | cut -d' ' -f1; }
# run NAME ARGS...: run nfsx, stdout to $WORK/NAME.out, stderr to
# $WORK/NAME-err.log, status in RC
run() {
	local name=$1
	shift
	timeout 60 "$NFSX" "$@" >"$WORK/$name.out" 2>"$WORK/$name-err.log"
	RC=$?
}
show_err() { tap_diag <"$WORK/$1-err.log"; }
V3="nfs://127.0.0.1:$P/export?mountport=$M"

# The first NFSv4 call may meet Ganesha still starting its NFSv4 side
# (it answers DELAY or GRACE for a moment): the client backs off on
# DELAY; give the whole a few tries before calling it a failure.
for i in 1 2 3 4 5 6 7 8 9 10; do
	run probe ls "nfs://127.0.0.1:$P/export?version=4.1" && break
	sleep 1
done

for v in 4.1 4.2 4; do
	U="nfs://127.0.0.1:$P/export"
	Q="?version=$v"

	run "ls$v" ls "$U/$Q"
	sort "$WORK/ls$v.out" >"$WORK/ls$v.sorted"
	[ "$RC" -eq 0 ] && grep -qx served.txt "$WORK/ls$v.sorted" && grep -qx dir "$WORK/ls$v.sorted"
	tap_ok $? "v$v: ls of the export lists served.txt and dir (rc $RC)" || show_err "ls$v"

	run "cat$v" cat "$U/served.txt$Q"
	[ "$RC" -eq 0 ] && cmp -s "$WORK/cat$v.out" "$EXP/served.txt"
	tap_ok $? "v$v: cat of a file written on the server's disk (rc $RC)" || show_err "cat$v"

	run "put$v" put "$LOC/big.bin" "$U/big-$v.bin$Q"
	[ "$RC" -eq 0 ] && [ "$(sum "$EXP/big-$v.bin")" = "$(sum "$LOC/big.bin")" ]
	tap_ok $? "v$v: put of 3 MiB: the file on the server's disk is identical (rc $RC)" ||
		show_err "put$v"

	run "get$v" get "$U/big-$v.bin$Q" "$LOC/back-$v.bin"
	[ "$RC" -eq 0 ] && [ "$(sum "$LOC/back-$v.bin")" = "$(sum "$LOC/big.bin")" ]
	tap_ok $? "v$v: get of it back: identical (rc $RC)" || show_err "get$v"

	run "cp$v" cp "$U/big-$v.bin$Q" "$U/copy-$v.bin$Q"
	[ "$RC" -eq 0 ] && [ "$(sum "$EXP/copy-$v.bin")" = "$(sum "$LOC/big.bin")" ]
	tap_ok $? "v$v: cp from NFS to NFS: identical (rc $RC)" || show_err "cp$v"

	run "stat$v" stat "$U/big-$v.bin$Q"
	size=$(stat -c %s "$EXP/big-$v.bin")
	ino=$(stat -c %i "$EXP/big-$v.bin")
	[ "$RC" -eq 0 ] && grep -Eq "(^|[^0-9])$size([^0-9]|$)" "$WORK/stat$v.out" &&
		grep -Eq "(^|[^0-9])$ino([^0-9]|$)" "$WORK/stat$v.out"
	tap_ok $? "v$v: stat shows the size ($size) and inode number ($ino) of the disk's file" ||
		{ show_err "stat$v"; tap_diag <"$WORK/stat$v.out"; }

	run "mkdir$v" mkdir -p "$U/made-$v/a/b$Q"
	[ "$RC" -eq 0 ] && [ -d "$EXP/made-$v/a/b" ]
	tap_ok $? "v$v: mkdir -p makes every level (rc $RC)" || show_err "mkdir$v"

	run "put2$v" put "$EXP/dir/inner.txt" "$U/made-$v/a/b/inner.txt$Q"
	[ "$RC" -eq 0 ] && cmp -s "$EXP/made-$v/a/b/inner.txt" "$EXP/dir/inner.txt"
	tap_ok $? "v$v: put of a file into the new tree (rc $RC)" || show_err "put2$v"
	run "rm$v" rm -r "$U/made-$v$Q"
	[ "$RC" -eq 0 ] && [ ! -e "$EXP/made-$v" ]
	tap_ok $? "v$v: rm -r removes a tree with a file in it (rc $RC)" || show_err "rm$v"

	printf 'moved\n' >"$EXP/mv-$v.txt"
	ino=$(stat -c %i "$EXP/mv-$v.txt")
	run "mv$v" mv "$U/mv-$v.txt$Q" "$U/dir/moved-$v.txt$Q"
	[ "$RC" -eq 0 ] && [ ! -e "$EXP/mv-$v.txt" ] &&
		[ "$(stat -c %i "$EXP/dir/moved-$v.txt" 2>/dev/null)" = "$ino" ]
	tap_ok $? "v$v: mv renames into another directory: the same inode (rc $RC)" || show_err "mv$v"
	run "ln$v" ln "$U/dir/moved-$v.txt$Q" "$U/linked-$v.txt$Q"
	[ "$RC" -eq 0 ] && [ "$(stat -c %i "$EXP/linked-$v.txt" 2>/dev/null)" = "$ino" ] &&
		[ "$(stat -c %h "$EXP/dir/moved-$v.txt")" = 2 ]
	tap_ok $? "v$v: ln makes a second name of the inode (rc $RC)" || show_err "ln$v"
	run "lnex$v" ln "$U/dir/moved-$v.txt$Q" "$U/linked-$v.txt$Q"
	[ "$RC" -eq 1 ] && grep -q "EXIST" "$WORK/lnex$v-err.log"
	tap_ok $? "v$v: ln onto an existing name fails naming EXIST (rc $RC)" || show_err "lnex$v"
	run "chmod$v" chmod 640 "$U/linked-$v.txt$Q"
	[ "$RC" -eq 0 ] && [ "$(stat -c %a "$EXP/dir/moved-$v.txt")" = 640 ]
	tap_ok $? "v$v: chmod sets the mode on disk (rc $RC)" || show_err "chmod$v"
	ln -s "dir/moved-$v.txt" "$EXP/sym-$v"
	run "lssym$v" ls -l "$U/sym-$v$Q"
	[ "$RC" -eq 0 ] && grep -Eq "^l.* sym-$v -> dir/moved-$v\.txt$" "$WORK/lssym$v.out"
	tap_ok $? "v$v: ls -l of a symbolic link shows its target (READLINK) (rc $RC)" ||
		{ show_err "lssym$v"; tap_diag <"$WORK/lssym$v.out"; }
	rm -f "$EXP/sym-$v" "$EXP/linked-$v.txt" "$EXP/dir/moved-$v.txt"

	run "missing$v" cat "$U/no-such-file$Q"
	[ "$RC" -ne 0 ] && grep -q "NOENT" "$WORK/missing$v-err.log"
	tap_ok $? "v$v: cat of a missing file fails naming NOENT (rc $RC)" || show_err "missing$v"
done

# NFSv3 against the same server shows what NFSv4.1 shows, and what the
# disk holds.
run ls3 ls "$V3"
RC3=$RC
sort "$WORK/ls3.out" >"$WORK/ls3.sorted"
run lsend ls "nfs://127.0.0.1:$P/export?version=4.1"
sort "$WORK/lsend.out" >"$WORK/lsend.sorted"
ls -A "$EXP" | sort >"$WORK/disk.sorted"
[ "$RC3" -eq 0 ] && [ "$RC" -eq 0 ] && cmp -s "$WORK/ls3.sorted" "$WORK/lsend.sorted" &&
	cmp -s "$WORK/disk.sorted" "$WORK/lsend.sorted"
tap_ok $? "v3 and v4.1 list the same names as the disk holds (rc $RC3, $RC)" ||
	{ show_err ls3; show_err lsend; diff "$WORK/ls3.sorted" "$WORK/lsend.sorted" | tap_diag; }
run get3 get "nfs://127.0.0.1:$P/export/big-4.1.bin?mountport=$M" "$LOC/back-3.bin"
[ "$RC" -eq 0 ] && [ "$(sum "$LOC/back-3.bin")" = "$(sum "$LOC/big.bin")" ]
tap_ok $? "v3 reads what v4.1 wrote: identical (rc $RC)" || show_err get3

alive "$GPID"
tap_ok $? "Ganesha still runs" || show_log ganesha
tap_done
