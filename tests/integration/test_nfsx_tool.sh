#!/bin/bash
# SPDX-License-Identifier: MIT
# TAP integration test of the nfsx command-line tool against nfsxd on a
# free 127.0.0.1 port (--no-rpcbind, the port given in the URL): put,
# get, cat, cp (local->nfs, nfs->local, nfs->nfs, into directories),
# ls, stat, mkdir (-p), rm (-r), compared by sha256 with the export's
# files on disk; identities from the URL (uid/gid); errors that name the
# NFS status (NFS3ERR_NOENT, NFS3ERR_EXIST, NFS3ERR_ISDIR, NFS3ERR_NOTEMPTY
# is not reached: rm -r empties first) and exit statuses 1 and 2; ls,
# stat, get, cat, put, cp, mkdir -p and rm -r again over NFSv4.1 and NFSv4.2
# (?version=4.1, 4.2; ls -l with version=4 too), compared with what NFSv3
# showed, and nfsx bench over NFSv4.1; mv, ln, chmod and symbolic links in
# ls -l and stat over NFSv3, NFSv4.1 and NFSv4.2,
# checked against the inode numbers, links and modes on disk.
# Needs root (nfsxd resolves handles with open_by_handle_at; the tool
# binds a privileged port for the default "secure" export).
#
# Usage: test_nfsx_tool.sh NFSXD NFSX

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
NFSX=$(realpath "${2:?usage: test_nfsx_tool.sh NFSXD NFSX}")

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (nfsxd handles, privileged source port)"
	exit 0
fi

chmod 755 "$WORK"
EXP=$WORK/export
LOC=$WORK/local
mkdir -p "$EXP" "$LOC/into"
chmod 777 "$EXP"
head -c $((3 * 1024 * 1024 + 4321)) /dev/urandom >"$LOC/big.bin"
printf 'hello nfsx\n' >"$LOC/small.txt"
: >"$LOC/empty"
printf 'served\n' >"$EXP/served.txt"

pick_port P || { echo "Bail out! no free port"; exit 1; }
start_nfsxd tool --no-rpcbind --port "$P" --bind 127.0.0.1 --log-level warn --nfs-vers 3,4 \
	--export "$EXP:rw,no_root_squash"
PID=$SERVER_PID
if ! wait_port "$P" 10 "$PID"; then
	echo "Bail out! nfsxd did not start listening on 127.0.0.1:$P"
	show_log tool
	exit 1
fi
U="nfs://127.0.0.1:$P$EXP"

sum() { sha256sum <"$1" | cut -d' ' -f1; }
# run NAME ARGS...: run nfsx, stdout to $WORK/NAME.out, stderr to
# $WORK/NAME-err.log (checked for sanitizer reports), status in RC
run() {
	local name=$1
	shift
	timeout 60 "$NFSX" "$@" >"$WORK/$name.out" 2>"$WORK/$name-err.log"
	RC=$?
}
err_has() { grep -q -- "$2" "$WORK/$1-err.log"; }
show_err() { tap_diag <"$WORK/$1-err.log"; }

# --- usage ---
run help --help
tap_ok $(( RC != 0 )) "nfsx --help exits 0"
grep -q "bench" "$WORK/help.out" && grep -q "nfs://HOST" "$WORK/help.out"
tap_ok $? "--help names the commands and the URL form"
run bogus frobnicate
tap_ok $(( RC != 2 )) "an unknown command exits 2 (got $RC)"
run badurl ls "http://127.0.0.1/x"
tap_ok $(( RC == 0 )) "ls of a non-nfs URL fails (got $RC)"
run v2 ls "$U?version=2"
tap_ok $(( RC != 2 )) "version=2 in the URL is a usage error (got $RC)" || show_err v2

# --- put / get / cat ---
run put put "$LOC/big.bin" "$U/big.bin"
tap_ok $(( RC != 0 )) "put of a 3 MiB file exits 0" || show_err put
[ "$(sum "$EXP/big.bin")" = "$(sum "$LOC/big.bin")" ]
tap_ok $? "the file on the server has the local file's sha256"
run get get "$U/big.bin" "$WORK/back.bin"
tap_ok $(( RC != 0 )) "get exits 0" || show_err get
[ "$(sum "$WORK/back.bin")" = "$(sum "$LOC/big.bin")" ]
tap_ok $? "get brings back the same bytes"
run cat cat "$U/big.bin"
[ "$RC" -eq 0 ] && [ "$(sum "$WORK/cat.out")" = "$(sum "$LOC/big.bin")" ]
tap_ok $? "cat writes the same bytes to stdout"
run catsmall cat "$U/served.txt" "$U/served.txt"
[ "$RC" -eq 0 ] && [ "$(cat "$WORK/catsmall.out")" = "$(printf 'served\nserved')" ]
tap_ok $? "cat of two URLs concatenates a file the server already had"
run putempty put "$LOC/empty" "$U/empty"
[ "$RC" -eq 0 ] && [ -f "$EXP/empty" ] && [ ! -s "$EXP/empty" ]
tap_ok $? "put of an empty file makes an empty file"
head -c 100 /dev/urandom >"$LOC/shorter"
cp "$LOC/small.txt" "$EXP/overwrite.txt"
head -c 5000 /dev/urandom >"$EXP/overwrite.txt"
run overwrite put "$LOC/shorter" "$U/overwrite.txt"
[ "$RC" -eq 0 ] && [ "$(sum "$EXP/overwrite.txt")" = "$(sum "$LOC/shorter")" ]
tap_ok $? "put over a longer file truncates it"
(cd "$WORK/local/into" && timeout 60 "$NFSX" get "$U/served.txt" >/dev/null 2>"$WORK/getdot-err.log")
[ "$(cat "$LOC/into/served.txt" 2>/dev/null)" = "served" ]
tap_ok $? "get without LOCAL writes into the current directory"

# --- mkdir ---
run mkdir mkdir "$U/d1"
[ "$RC" -eq 0 ] && [ -d "$EXP/d1" ]
tap_ok $? "mkdir makes a directory"
run mkdirp mkdir -p "$U/d2/x/y/z"
[ "$RC" -eq 0 ] && [ -d "$EXP/d2/x/y/z" ]
tap_ok $? "mkdir -p makes the parents"
run mkdirp2 mkdir -p "$U/d2/x"
tap_ok $(( RC != 0 )) "mkdir -p of an existing directory succeeds"
run mkdirex mkdir "$U/d1"
[ "$RC" -eq 1 ] && err_has mkdirex NFS3ERR_EXIST
tap_ok $? "mkdir of an existing name fails with NFS3ERR_EXIST" || show_err mkdirex
run mkdirnoent mkdir "$U/nope/sub"
[ "$RC" -eq 1 ] && err_has mkdirnoent NFS3ERR_NOENT
tap_ok $? "mkdir under a missing parent fails with NFS3ERR_NOENT" || show_err mkdirnoent

# --- cp in every direction ---
run cpln cp "$LOC/small.txt" "$U/d1/"
[ "$RC" -eq 0 ] && [ "$(sum "$EXP/d1/small.txt")" = "$(sum "$LOC/small.txt")" ]
tap_ok $? "cp local -> nfs directory keeps the name" || show_err cpln
run cpnn cp "$U/big.bin" "$U/d2/x/copy.bin"
[ "$RC" -eq 0 ] && [ "$(sum "$EXP/d2/x/copy.bin")" = "$(sum "$LOC/big.bin")" ]
tap_ok $? "cp nfs -> nfs" || show_err cpnn
run cpnl cp "$U/d2/x/copy.bin" "$LOC/into"
[ "$RC" -eq 0 ] && [ "$(sum "$LOC/into/copy.bin")" = "$(sum "$LOC/big.bin")" ]
tap_ok $? "cp nfs -> local directory keeps the name" || show_err cpnl
run cpll cp "$LOC/small.txt" "$LOC/other.txt"
tap_ok $(( RC != 2 )) "cp with no nfs:// side is a usage error (got $RC)"
run cpnoent cp "$U/missing.bin" "$LOC/x"
[ "$RC" -eq 1 ] && err_has cpnoent NFS3ERR_NOENT && err_has cpnoent "missing.bin"
tap_ok $? "cp of a missing file names the URL and NFS3ERR_NOENT" || show_err cpnoent
run cpdir cp "$U/d1" "$LOC/x"
[ "$RC" -eq 1 ] && err_has cpdir NFS3ERR_ISDIR
tap_ok $? "cp of a directory fails with NFS3ERR_ISDIR" || show_err cpdir

# --- identities from the URL ---
run uid put "$LOC/small.txt" "$U/owned.txt?uid=1234&gid=4321"
[ "$RC" -eq 0 ] && [ "$(stat -c %u:%g "$EXP/owned.txt")" = "1234:4321" ]
tap_ok $? "put with ?uid=1234&gid=4321 creates a file owned by 1234:4321" || show_err uid
chmod 600 "$EXP/owned.txt"
run uidread cat "$U/owned.txt?uid=999&gid=999"
[ "$RC" -eq 1 ] && err_has uidread NFS3ERR_ACCES
tap_ok $? "another uid cannot read a 0600 file: NFS3ERR_ACCES" || show_err uidread
run uidread2 cat "$U/owned.txt?uid=1234&gid=4321"
[ "$RC" -eq 0 ] && [ "$(cat "$WORK/uidread2.out")" = "hello nfsx" ]
tap_ok $? "its owner can"

# --- ls, stat ---
run ls ls "$U"
[ "$RC" -eq 0 ] && grep -qx "big.bin" "$WORK/ls.out" && grep -qx "d1" "$WORK/ls.out" &&
	! grep -qx "\.\." "$WORK/ls.out"
tap_ok $? "ls lists the names (no dot entries)" || tap_diag <"$WORK/ls.out"
[ "$(cat "$WORK/ls.out")" = "$(cd "$EXP" && LC_ALL=C ls -1)" ]
tap_ok $? "ls shows exactly the export's entries, sorted"
run lsa ls -a "$U"
grep -qx "\.\." "$WORK/lsa.out"
tap_ok $? "ls -a shows dot entries"
run lsl ls -l "$U"
grep -E "^-rw-r--r-- +1 +[0-9]+ +[0-9]+ +$((3 * 1024 * 1024 + 4321)) .* big\.bin$" "$WORK/lsl.out" >/dev/null &&
	grep -E "^d[rwx-]{9} .* d1$" "$WORK/lsl.out" >/dev/null
tap_ok $? "ls -l shows mode, size and type" || tap_diag <"$WORK/lsl.out"
run lsfile ls -l "$U/big.bin"
[ "$RC" -eq 0 ] && [ "$(wc -l <"$WORK/lsfile.out")" -eq 1 ] && grep -q "big.bin" "$WORK/lsfile.out"
tap_ok $? "ls of a file shows that file"
run stat stat "$U/big.bin"
[ "$RC" -eq 0 ] && grep -q "Size: $((3 * 1024 * 1024 + 4321)) " "$WORK/stat.out" &&
	grep -q "regular file" "$WORK/stat.out" &&
	grep -q "Fileid: $(stat -c %i "$EXP/big.bin") " "$WORK/stat.out"
tap_ok $? "stat shows size, type and the inode number as fileid" || tap_diag <"$WORK/stat.out"
run statdir stat "$U/d1"
grep -q "directory" "$WORK/statdir.out"
tap_ok $? "stat of a directory says directory"
run statnoent stat "$U/no/such/file"
[ "$RC" -eq 1 ] && err_has statnoent "NFS3ERR_NOENT"
tap_ok $? "stat of a missing path: exit 1, NFS3ERR_NOENT" || show_err statnoent
run lsnoexp ls "nfs://127.0.0.1:$P/not/exported/anywhere"
tap_ok $(( RC != 1 )) "ls outside every export fails with exit 1 (got $RC)"
err_has lsnoexp "MNT3ERR_NOENT"
tap_ok $? "ls outside every export names the MOUNT status MNT3ERR_NOENT" || show_err lsnoexp
[ -s "$WORK/lsnoexp-err.log" ]
tap_ok $? "and says why: $(head -c 200 "$WORK/lsnoexp-err.log")"

# --- the same over NFSv4.1 and NFSv4.2 (?version=4.1, 4.2; version=4 means the
# highest both sides speak: 4.2 with nfsxd) ---
for v in 4.1 4.2; do
	run ls4_$v ls "$U?version=$v"
	[ "$RC" -eq 0 ] && [ "$(cat "$WORK/ls4_$v.out")" = "$(cat "$WORK/ls.out")" ]
	tap_ok $? "ls over NFSv$v lists what ls over NFSv3 listed" || show_err ls4_$v
	run lsa4_$v ls -a "$U?version=$v"
	[ "$RC" -eq 0 ] && [ "$(cat "$WORK/lsa4_$v.out")" = "$(cat "$WORK/lsa.out")" ]
	tap_ok $? "ls -a over NFSv$v: the dot entries too, as over NFSv3" ||
		{ show_err lsa4_$v; tap_diag <"$WORK/lsa4_$v.out"; }
	run lsl4_$v ls -l "$U?version=$v"
	[ "$RC" -eq 0 ] && [ "$(cat "$WORK/lsl4_$v.out")" = "$(cat "$WORK/lsl.out")" ]
	tap_ok $? "ls -l over NFSv$v: the same modes, owners, sizes and times as over NFSv3" ||
		{ show_err lsl4_$v; tap_diag <"$WORK/lsl4_$v.out"; }
	run stat4_$v stat "$U/big.bin?version=$v"
	[ "$RC" -eq 0 ] && for l in Size: Access: Fileid: Modify: Change:; do
		[ "$(grep "$l" "$WORK/stat4_$v.out")" = "$(grep "$l" "$WORK/stat.out")" ] || false
	done
run lsl4x ls -l "$U?version=4"
[ "$RC" -eq 0 ] && [ "$(cat "$WORK/lsl4x.out")" = "$(cat "$WORK/lsl.out")" ]
tap_ok $? "ls -l with version=4 (the highest both sides speak)" || show_err lsl4x
	tap_ok $? "stat over NFSv$v: size, type, mode, owner, fileid and times as over NFSv3" ||
		tap_diag <"$WORK/stat4_$v.out"
	run get4_$v get "$U/big.bin?version=$v" "$WORK/back4.bin"
	[ "$RC" -eq 0 ] && [ "$(sum "$WORK/back4.bin")" = "$(sum "$LOC/big.bin")" ]
	tap_ok $? "get over NFSv$v brings back the same bytes" || show_err get4_$v
	run cat4_$v cat "$U/big.bin?version=$v"
	[ "$RC" -eq 0 ] && [ "$(sum "$WORK/cat4_$v.out")" = "$(sum "$LOC/big.bin")" ]
	tap_ok $? "cat over NFSv$v writes the same bytes" || show_err cat4_$v
	run put4_$v put "$LOC/big.bin" "$U/d1/big4.bin?version=$v"
	[ "$RC" -eq 0 ] && [ "$(sum "$EXP/d1/big4.bin")" = "$(sum "$LOC/big.bin")" ]
	tap_ok $? "put over NFSv$v (OPEN4_CREATE, WRITE, COMMIT)" || show_err put4_$v
	run cp4_$v cp "$U/d1/big4.bin?version=$v" "$U/d1/big3.bin"
	[ "$RC" -eq 0 ] && [ "$(sum "$EXP/d1/big3.bin")" = "$(sum "$LOC/big.bin")" ]
	tap_ok $? "cp from NFSv$v to NFSv3" || show_err cp4_$v
	run mkdir4_$v mkdir -p "$U/d4/x/y?version=$v"
	[ "$RC" -eq 0 ] && [ -d "$EXP/d4/x/y" ]
	tap_ok $? "mkdir -p over NFSv$v" || show_err mkdir4_$v
	run rm4_$v rm -r "$U/d4?version=$v"
	[ "$RC" -eq 0 ] && [ ! -e "$EXP/d4" ]
	tap_ok $? "rm -r over NFSv$v" || show_err rm4_$v
	run rm4f_$v rm "$U/d1/big4.bin?version=$v"
	[ "$RC" -eq 0 ] && [ ! -e "$EXP/d1/big4.bin" ] && rm -f "$EXP/d1/big3.bin"
	tap_ok $? "rm over NFSv$v" || show_err rm4f_$v
	run rmroot4_$v rm -r "$U?version=$v"
	[ "$RC" -eq 1 ] && [ -e "$EXP/served.txt" ] && err_has rmroot4_$v "export's root"
	tap_ok $? "rm -r of the export root over NFSv$v is refused too" || show_err rmroot4_$v
	run statnoent4_$v stat "$U/no/such/file?version=$v"
	[ "$RC" -eq 1 ] && err_has statnoent4_$v "NOENT"
	tap_ok $? "stat of a missing path over NFSv$v: exit 1, NOENT" || show_err statnoent4_$v
done
run lsl4x ls -l "$U?version=4"
[ "$RC" -eq 0 ] && [ "$(cat "$WORK/lsl4x.out")" = "$(cat "$WORK/lsl.out")" ]
tap_ok $? "ls -l with version=4 (the highest both sides speak)" || show_err lsl4x
run bench4 bench --eta=never rw=read bs=4k size=64k runtime=1 "$U/bench4?version=4.1"
[ "$RC" -eq 0 ] && grep -q "NFS operations (NFSv4.1" "$WORK/bench4.out" &&
	[ "$(stat -c %s "$EXP/bench4/nfsx.0.0" 2>/dev/null)" = 65536 ]
tap_ok $? "nfsx bench over NFSv4.1 (the URL's version): runs, lays out its file (exit $RC)" ||
	show_err bench4

# --- mv, ln, chmod and symbolic links, over NFSv3, NFSv4.1 and NFSv4.2 ---
for v in 3 4.1 4.2; do
	Q="?version=$v"
	printf 'moved %s\n' "$v" >"$EXP/mv$v.txt"
	ino=$(stat -c %i "$EXP/mv$v.txt")
	run mv$v mv "$U/mv$v.txt$Q" "$U/d1/mvd$v.txt$Q"
	[ "$RC" -eq 0 ] && [ ! -e "$EXP/mv$v.txt" ] && [ "$(stat -c %i "$EXP/d1/mvd$v.txt")" = "$ino" ]
	tap_ok $? "mv over NFSv$v: the same inode under its new name" || show_err mv$v
	run mvin$v mv "$U/d1/mvd$v.txt$Q" "$U$Q"
	[ "$RC" -eq 0 ] && [ ! -e "$EXP/d1/mvd$v.txt" ] && [ "$(stat -c %i "$EXP/mvd$v.txt")" = "$ino" ]
	tap_ok $? "mv over NFSv$v into a directory keeps the name" || show_err mvin$v
	run mvnoent$v mv "$U/nope$v$Q" "$U/d1/x$Q"
	[ "$RC" -eq 1 ] && err_has mvnoent$v NOENT
	tap_ok $? "mv over NFSv$v of a missing name: exit 1, NOENT" || show_err mvnoent$v
	run ln$v ln "$U/mvd$v.txt$Q" "$U/d1/ln$v.txt$Q"
	[ "$RC" -eq 0 ] && [ "$(stat -c %i "$EXP/d1/ln$v.txt")" = "$ino" ] &&
		[ "$(stat -c %h "$EXP/mvd$v.txt")" = 2 ]
	tap_ok $? "ln over NFSv$v: a second name of the same inode" || show_err ln$v
	run lnex$v ln "$U/mvd$v.txt$Q" "$U/d1/ln$v.txt$Q"
	[ "$RC" -eq 1 ] && err_has lnex$v EXIST
	tap_ok $? "ln over NFSv$v onto an existing name: exit 1, EXIST" || show_err lnex$v
	run chmod$v chmod 4750 "$U/mvd$v.txt$Q" "$U/d1/ln$v.txt$Q"
	[ "$RC" -eq 0 ] && [ "$(stat -c %a "$EXP/mvd$v.txt")" = 4750 ]
	tap_ok $? "chmod over NFSv$v sets the mode on disk" || show_err chmod$v
	run chmodbad$v chmod 8 "$U/mvd$v.txt$Q"
	[ "$RC" -eq 2 ] && [ "$(stat -c %a "$EXP/mvd$v.txt")" = 4750 ]
	tap_ok $? "chmod of a mode that is not octal: exit 2, nothing changed" || show_err chmodbad$v
	ln -s "mvd$v.txt" "$EXP/d1/sym$v"
	run lssym$v ls -l "$U/d1/sym$v$Q"
	[ "$RC" -eq 0 ] && grep -Eq "^l[rwx-]{9} .* sym$v -> mvd$v\.txt$" "$WORK/lssym$v.out"
	tap_ok $? "ls -l over NFSv$v of a symbolic link shows its target" ||
		{ show_err lssym$v; tap_diag <"$WORK/lssym$v.out"; }
	run lsdir$v ls -l "$U/d1$Q"
	[ "$RC" -eq 0 ] && grep -Eq "^l.* sym$v -> mvd$v\.txt$" "$WORK/lsdir$v.out" &&
		grep -Eq "^-rwsr-x--- +2 .* ln$v\.txt$" "$WORK/lsdir$v.out"
	tap_ok $? "ls -l over NFSv$v of a directory: the link's target, the new mode and links" ||
		{ show_err lsdir$v; tap_diag <"$WORK/lsdir$v.out"; }
	run statsym$v stat "$U/d1/sym$v$Q"
	[ "$RC" -eq 0 ] && grep -q "File: .*sym$v.* -> mvd$v\.txt$" "$WORK/statsym$v.out" &&
		grep -q "symbolic link" "$WORK/statsym$v.out"
	tap_ok $? "stat over NFSv$v of a symbolic link names its target" || tap_diag <"$WORK/statsym$v.out"
	rm -f "$EXP/d1/sym$v" "$EXP/d1/ln$v.txt" "$EXP/mvd$v.txt"
done
printf 'x\n' >"$EXP/mvx.txt"
run mvx mv "$U/mvx.txt" "$U/mvy.txt?version=4.1"
[ "$RC" -eq 1 ] && err_has mvx "not on the server" && [ -e "$EXP/mvx.txt" ]
tap_ok $? "mv between NFSv3 and NFSv4.1 URLs is refused" || show_err mvx
rm -f "$EXP/mvx.txt"

# --- rm ---
run rm rm "$U/big.bin"
[ "$RC" -eq 0 ] && [ ! -e "$EXP/big.bin" ]
tap_ok $? "rm removes a file"
run rmnoent rm "$U/big.bin"
[ "$RC" -eq 1 ] && err_has rmnoent NFS3ERR_NOENT
tap_ok $? "rm of a missing file: NFS3ERR_NOENT" || show_err rmnoent
run rmdir rm "$U/d2"
[ "$RC" -eq 1 ] && err_has rmdir NFS3ERR_ISDIR && [ -d "$EXP/d2" ]
tap_ok $? "rm of a directory without -r: NFS3ERR_ISDIR, nothing removed" || show_err rmdir
run rmr rm -r "$U/d2"
[ "$RC" -eq 0 ] && [ ! -e "$EXP/d2" ]
tap_ok $? "rm -r removes a tree" || show_err rmr
run rmroot rm -r "$U"
[ "$RC" -eq 1 ] && [ -d "$EXP" ] && [ -e "$EXP/served.txt" ]
tap_ok $? "rm -r of the export root is refused"

# --- a server that is gone ---
if ! stop_nfsxd "$PID" "$STOP_TMO"; then
	tap_ok 1 "nfsxd exits on SIGTERM"
else
	tap_ok "$STOP_STATUS" "nfsxd exits 0 on SIGTERM"
fi
run down stat "$U/served.txt?timeo=2000&retrans=1"
[ "$RC" -eq 1 ] && grep -q "Connection refused" "$WORK/down-err.log"
tap_ok $? "with the server stopped: exit 1, connection refused ($(head -c 160 "$WORK/down-err.log"))"

logs_clean
tap_ok $? "no sanitizer report from nfsxd or nfsx"
tap_done
