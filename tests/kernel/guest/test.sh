#!/bin/sh
# Smoke test of the kernel NFS client, run inside the guest by /init.
#   sh test.sh            run all steps, print PASS/FAIL lines and a summary
#   sh test.sh --step X   run one step (used internally, under `timeout`)
# Environment: see /init (KC_VERS, KC_SERVER, KC_EXPORT, KC_PORT, KC_MPORT,
# KC_EXTRA, KC_TAG, KC_STEPTMO).

M=/mnt/nfs                  # mount point
D=$M/kclient-$KC_TAG        # per-run test directory on the server
R=/tmp/ref                  # local (tmpfs) reference copies
BIG_MB=20
SPARSE_OFF=2048             # in 4 KiB blocks -> 8 MiB hole before the data
NMANY=200

up() { cut -d' ' -f1 /proc/uptime; }
die() { echo "  error: $*"; exit 1; }
dropcaches() { sync; echo 3 > /proc/sys/vm/drop_caches; }
md5() { md5sum "$1" | cut -d' ' -f1; }
eq() {  # eq WHAT GOT WANT
	[ "$2" = "$3" ] || die "$1: got '$2', want '$3'"
}

mount_opts() {
	case "$KC_VERS" in
	3|3.0)
		o="vers=3,proto=tcp,port=$KC_PORT,mountproto=tcp,mountvers=3,nolock,sec=sys,addr=$KC_SERVER"
		[ -n "$KC_MPORT" ] && o="$o,mountport=$KC_MPORT"
		;;
	4|4.*)
		# clientaddr=0.0.0.0: no NFSv4.0 callback address (the server
		# cannot reach the guest behind slirp NAT anyway); 4.1+ uses the
		# backchannel on the fore connection.
		o="vers=$KC_VERS,proto=tcp,port=$KC_PORT,sec=sys,addr=$KC_SERVER,clientaddr=0.0.0.0"
		;;
	*) echo "bad KC_VERS=$KC_VERS" >&2; return 1 ;;
	esac
	[ -n "$KC_EXTRA" ] && o="$o,$KC_EXTRA"
	echo "$o"
}
fstype() { case "$KC_VERS" in 4*) echo nfs4 ;; *) echo nfs ;; esac; }

do_mount() {
	o=$(mount_opts) || exit 1
	echo "  mount -t $(fstype) -o $o $KC_SERVER:$KC_EXPORT $M"
	mount -t "$(fstype)" -o "$o" "$KC_SERVER:$KC_EXPORT" "$M" || die "mount failed"
	grep -q " $M nfs" /proc/mounts || die "not in /proc/mounts"
}

# ---------------------------------------------------------------- the steps
s_mount() { do_mount; }

s_mountopts() {
	line=$(grep " $M nfs" /proc/mounts) || die "no nfs mount"
	echo "  $line"
	case "$KC_VERS" in
	3|3.0) want=vers=3 ;;
	4) want=vers=4 ;;
	*) want=vers=$KC_VERS ;;
	esac
	echo "$line" | grep -Eq "[ ,]$want[ ,]" || die "negotiated version differs (want $want)"
}

s_mkdir() {
	rm -rf "$D" 2>/dev/null
	mkdir "$D" || die mkdir
	mkdir "$D/sub" || die "mkdir sub"
	[ -d "$D/sub" ] || die "sub not a directory"
}

s_small_files() {
	mkdir -p $R
	echo "hello from the kernel client $KC_TAG" > $R/a.txt
	printf 'line1\nline2\n\000\001\002\377binary\n' > $R/b.bin
	: > $R/empty
	for f in a.txt b.bin empty; do cp $R/$f "$D/$f" || die "write $f"; done
	dropcaches
	for f in a.txt b.bin empty; do cmp $R/$f "$D/$f" || die "readback $f differs"; done
	eq "size empty" "$(stat -c %s "$D/empty")" 0
}

s_big_write() {
	mkdir -p $R
	dd if=/dev/urandom of=$R/big bs=1M count=$BIG_MB 2>/dev/null || die "local dd"
	t0=$(up)
	dd if=$R/big of="$D/big" bs=1M conv=fsync 2>/tmp/dd.err || { cat /tmp/dd.err; die "dd to nfs"; }
	t1=$(up)
	eq size "$(stat -c %s "$D/big")" $((BIG_MB*1048576))
	awk -v a=$t0 -v b=$t1 -v mb=$BIG_MB 'BEGIN{d=b-a; if(d<=0)d=0.01; printf "  wrote %d MiB in %.2fs (%.1f MiB/s)\n", mb, d, mb/d}'
}

s_big_read() {
	dropcaches
	t0=$(up)
	got=$(md5 "$D/big")
	t1=$(up)
	eq md5 "$got" "$(md5 $R/big)"
	echo "  md5 $got"
	awk -v a=$t0 -v b=$t1 -v mb=$BIG_MB 'BEGIN{d=b-a; if(d<=0)d=0.01; printf "  read %d MiB in %.2fs (%.1f MiB/s)\n", mb, d, mb/d}'
}

s_ls_l() {
	ls -l "$D" | sed 's/^/  /'
	out=$(ls "$D" | tr '\n' ' ')
	eq listing "$out" "a.txt b.bin big empty sub "
	ls -ln "$D/big" | awk -v s=$((BIG_MB*1048576)) '{ if ($5 != s) exit 1 }' || die "ls -l size"
}

s_stat() {
	stat "$D/big" | sed 's/^/  /'
	eq type "$(stat -c %F "$D/big")" "regular file"
	eq dirtype "$(stat -c %F "$D/sub")" "directory"
	eq size "$(stat -c %s "$D/big")" $((BIG_MB*1048576))
	echo "  owner uid:gid = $(stat -c %u:%g "$D/big") (info)"
	stat -f "$M" | sed 's/^/  /'
}

s_df() {
	# -P: one line per file system even when its name is long (the
	# export path of a test server is).
	df -Pk "$M" | sed 's/^/  /'
	df -Pk "$M" | awk 'NR==2 { if ($2+0 > 0) ok=1 } END { exit !ok }' || die "df reports no size"
}

s_append() {
	cp $R/a.txt $R/app
	echo "appended line" >> $R/app
	echo "appended line" >> "$D/a.txt" || die append
	dropcaches
	cmp $R/app "$D/a.txt" || die "content after append"
	cp $R/app $R/a.txt
}

s_overwrite() {
	dd if=$R/big of=$R/mid bs=64k count=16 2>/dev/null     # 1 MiB
	cp $R/mid "$D/mid" || die copy
	dd if=/dev/urandom of=$R/patch bs=4096 count=3 2>/dev/null
	dd if=$R/patch of=$R/mid bs=4096 seek=100 conv=notrunc 2>/dev/null
	dd if=$R/patch of="$D/mid" bs=4096 seek=100 conv=notrunc 2>/dev/null || die "dd notrunc"
	dropcaches
	eq md5 "$(md5 "$D/mid")" "$(md5 $R/mid)"
}

s_direct_io() {
	# O_DIRECT bypasses the page cache (kernel nfs_direct path)
	dd if=$R/mid of="$D/direct" bs=64k oflag=direct 2>/tmp/dd.err || { cat /tmp/dd.err; die "O_DIRECT write"; }
	eq size "$(stat -c %s "$D/direct")" 1048576
	eq md5 "$(dd if="$D/direct" bs=64k iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$(md5 $R/mid)"
	rm "$D/direct" || die rm
}

s_rename() {
	mv "$D/a.txt" "$D/a2.txt" || die "rename"
	[ ! -e "$D/a.txt" ] || die "old name still exists"
	cmp $R/a.txt "$D/a2.txt" || die "content after rename"
	mv "$D/a2.txt" "$D/sub/a3.txt" || die "rename into subdir"
	cmp $R/a.txt "$D/sub/a3.txt" || die "content after cross-dir rename"
	cp $R/b.bin "$D/victim"
	mv -f "$D/b.bin" "$D/victim" || die "rename over existing"
	[ ! -e "$D/b.bin" ] || die "source still exists"
	cmp $R/b.bin "$D/victim" || die "content after rename-over"
}

s_hardlink() {
	ln "$D/sub/a3.txt" "$D/hl" || die "link"
	eq nlink "$(stat -c %h "$D/hl")" 2
	eq inode "$(stat -c %i "$D/hl")" "$(stat -c %i "$D/sub/a3.txt")"
	dropcaches
	eq "nlink (after drop_caches)" "$(stat -c %h "$D/sub/a3.txt")" 2
	cmp $R/a.txt "$D/hl" || die "content via link"
	rm "$D/hl" || die "unlink"
	eq "nlink after unlink" "$(stat -c %h "$D/sub/a3.txt")" 1
}

s_symlink() {
	ln -s sub/a3.txt "$D/sl" || die "symlink"
	ln -s does-not-exist "$D/dangling" || die "dangling symlink"
	dropcaches
	eq readlink "$(readlink "$D/sl")" "sub/a3.txt"
	eq type "$(stat -c %F "$D/sl")" "symbolic link"
	cmp $R/a.txt "$D/sl" || die "read through symlink"
	[ -L "$D/dangling" ] && [ ! -e "$D/dangling" ] || die "dangling symlink"
}

s_chmod() {
	for mode in 640 755 600 4755 2750 1777 0 644; do
		chmod $mode "$D/sub/a3.txt" || die "chmod $mode"
		dropcaches
		eq "mode" "$(stat -c %a "$D/sub/a3.txt")" "$mode"
	done
	chmod 700 "$D/sub" || die "chmod dir"
	dropcaches
	eq "dir mode" "$(stat -c %a "$D/sub")" 700
	chmod 755 "$D/sub" || die "chmod dir"
}

s_truncate() {
	cp $R/mid "$D/trunc" || die copy
	truncate -s 1000 "$D/trunc" || die "truncate down"
	head -c 1000 $R/mid > $R/t1000
	dropcaches
	eq size "$(stat -c %s "$D/trunc")" 1000
	cmp $R/t1000 "$D/trunc" || die "content after shrink"
	truncate -s 70000 "$D/trunc" || die "truncate up"
	cp $R/t1000 $R/t70000; truncate -s 70000 $R/t70000
	dropcaches
	eq size "$(stat -c %s "$D/trunc")" 70000
	cmp $R/t70000 "$D/trunc" || die "content after extend (tail not zero?)"
	: > "$D/trunc" || die "truncate to 0 via O_TRUNC"
	eq size "$(stat -c %s "$D/trunc")" 0
}

s_sparse() {
	dd if=$R/patch of="$D/sparse" bs=4096 seek=$SPARSE_OFF count=3 2>/dev/null || die "dd seek"
	dd if=$R/patch of=$R/sparse bs=4096 seek=$SPARSE_OFF count=3 2>/dev/null
	dropcaches
	sz=$(stat -c %s "$D/sparse")
	eq size "$sz" $(( (SPARSE_OFF+3)*4096 ))
	eq md5 "$(md5 "$D/sparse")" "$(md5 $R/sparse)"
	# the hole must read back as zeros
	eq "hole md5" "$(dd if="$D/sparse" bs=4096 count=$SPARSE_OFF 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(dd if=/dev/zero bs=4096 count=$SPARSE_OFF 2>/dev/null | md5sum | cut -d' ' -f1)"
	echo "  size=$sz blocks(512B)=$(stat -c %b "$D/sparse") (info: allocation as reported by server)"
}

s_readdir_many() {
	mkdir "$D/many" || die mkdir
	i=0
	while [ $i -lt $NMANY ]; do : > "$D/many/file_with_a_longish_name_$i" || die "create $i"; i=$((i+1)); done
	dropcaches
	eq count "$(ls "$D/many" | wc -l)" $NMANY
	eq "count (ls -l)" "$(ls -l "$D/many" | grep -c file_with)" $NMANY
	rm -f "$D/many"/file_with_a_longish_name_* || die "rm many"
	eq "count after rm" "$(ls -A "$D/many" | wc -l)" 0
	rmdir "$D/many" || die rmdir
}

# POSIX locks from two processes. The client checks its own lock table
# before it asks the server, so this shows the server granting, testing
# and releasing locks as the client expects (over NFSv3 with nolock, the
# client alone); conflicts between clients are the wire tests' (nfs4-lock).
s_locks() {
	[ -x /bin/kc-lock ] || die "no /bin/kc-lock in the image"
	/bin/kc-lock "$D/lockf" || die "kc-lock exit $?"
	rm -f "$D/lockf" || die "rm lockf"
}

# Read delegations between two clients. A second mount of the export with
# another NFSv4 minor version is another client of the server (the kernel
# keeps one per server and version): H, over 4.1, reads a file and is
# given a read delegation (4.1 calls back on the fore connection; 4.0's
# callback address is unreachable behind slirp, so 4.0 gets none); W, over
# NFSv3 or 4.0, then rewrites the file: the server recalls H's delegation
# first (W hears DELAY or JUKEBOX and retries), H returns it (the
# DELEGRETURN count of its mount goes up), W's write goes through well
# within a lease (no revocation needed), and H then reads W's data.
M2=/mnt/nfs2
delegreturns() {  # delegreturns MOUNTPOINT: DELEGRETURN calls so far
	awk -v m="$1" '$1 == "device" { f = ($5 == m) } f && $1 == "DELEGRETURN:" { print $2; exit }' \
		/proc/self/mountstats
}
s_deleg() {
	mkdir -p $M2
	if [ "$KC_VERS" = 4.1 ]; then H=$M W=$M2 v2=4.0; else H=$M2 W=$M v2=4.1; fi
	sv=$KC_VERS; KC_VERS=$v2; o=$(mount_opts); KC_VERS=$sv
	echo "  mount -t nfs4 -o $o $KC_SERVER:$KC_EXPORT $M2"
	mount -t nfs4 -o "$o" "$KC_SERVER:$KC_EXPORT" $M2 || die "second mount failed"
	sub=${D#$M}
	echo "first version" > "$W$sub/dl" || die "write by W"
	eq "H reads" "$(cat "$H$sub/dl")" "first version"
	n0=$(delegreturns $H)
	t0=$(up)
	echo "second version" > "$W$sub/dl" || die "rewrite by W"
	t1=$(up)
	n1=$(delegreturns $H)
	got=$(cat "$H$sub/dl")
	# the later steps need neither the file nor the second mount
	rm -f "$W$sub/dl" || die rm
	umount $M2 || die "umount second mount"
	echo "  rewrite by W took $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}')s; H's DELEGRETURNs ${n0:-?} -> ${n1:-?}"
	[ -n "$n1" ] && [ "$n1" -gt "${n0:-0}" ] || die "H returned no delegation (none given, or never recalled)"
	awk -v a=$t0 -v b=$t1 'BEGIN{exit !(b-a < 15)}' || die "W waited a lease: the recall did not work"
	eq "H reads W's data" "$got" "second version"
}

# NFSv4.2 only: user xattrs and copy_file_range (kc-xc), each having
# gone to the server as its own operation (the mount's counts of COPY,
# SETXATTR, GETXATTR, LISTXATTRS and REMOVEXATTR went up), the copies
# not to the client's fallback (a copy by reads and writes).
opcount() {  # opcount MOUNTPOINT OP: calls of OP so far
	awk -v m="$1" -v op="$2:" '$1 == "device" { f = ($5 == m) } f && $1 == op { print $2; exit }' \
		/proc/self/mountstats
}
s_v42xc() {
	[ -x /bin/kc-xc ] || die "no /bin/kc-xc in the image"
	for op in COPY SETXATTR GETXATTR LISTXATTRS REMOVEXATTR; do
		eval "c0_$op=\$(opcount $M $op)"
	done
	/bin/kc-xc "$D" || die "kc-xc exit $?"
	for op in COPY SETXATTR GETXATTR LISTXATTRS REMOVEXATTR; do
		eval "c0=\$c0_$op"
		c1=$(opcount $M $op)
		echo "  $op calls: ${c0:-?} -> ${c1:-?}"
		[ -n "$c1" ] && [ "$c1" -gt "${c0:-0}" ] || die "no $op reached the server"
	done
	# two copy_file_range calls, two COPYs: a COPY answered NOTSUPP
	# makes the client copy by itself from then on, sending one only
	[ "$(opcount $M COPY)" -ge $((${c0_COPY:-0} + 2)) ] || die "one COPY for two copies"
	rm -f "$D/xc-src" "$D/xc-dst" || die rm
}

# NFSv4.2 only: a sparse file's holes and data found with SEEK_DATA and
# SEEK_HOLE, a range allocated and one punched with fallocate (kc-sp),
# each having gone to the server: SEEK counted once for every lseek (the
# client answers by itself once the server said NOTSUPP), ALLOCATE and
# DEALLOCATE counted. Where the guest's kernel reads with READ_PLUS
# (CONFIG_NFS_V4_2_READ_PLUS; required with KC_WANT_READ_PLUS=1), the
# file read back whole went out so, and not one READ: a READ_PLUS the
# server refused would be counted too, and the client would read on with
# READ.
s_v42sp() {
	[ -x /bin/kc-sp ] || die "no /bin/kc-sp in the image"
	/bin/kc-sp write "$D/sp" || die "kc-sp write exit $?"
	dropcaches
	for op in SEEK ALLOCATE DEALLOCATE READ_PLUS; do
		eval "c0_$op=\$(opcount $M $op)"
	done
	nseek=$(/bin/kc-sp seek "$D/sp") || die "kc-sp seek exit $?"
	dropcaches
	r0=$(opcount $M READ)
	/bin/kc-sp read "$D/sp" || die "kc-sp read exit $?"
	r1=$(opcount $M READ)
	for op in SEEK ALLOCATE DEALLOCATE READ_PLUS; do
		eval "c0=\$c0_$op"
		c1=$(opcount $M $op)
		echo "  $op calls: ${c0:-?} -> ${c1:-?}"
		[ "$op" = READ_PLUS ] && continue
		[ -n "$c1" ] && [ "$c1" -gt "${c0:-0}" ] || die "no $op reached the server"
	done
	[ "$(opcount $M SEEK)" -ge $((${c0_SEEK:-0} + nseek)) ] ||
		die "fewer SEEKs than the $nseek lseeks: the client answered some itself"
	cfg=$(ls /boot/config-* 2>/dev/null | head -1)
	[ -n "$cfg" ] || die "no /boot/config-* in the image"
	if grep -q '^CONFIG_NFS_V4_2_READ_PLUS=y' "$cfg"; then
		c1=$(opcount $M READ_PLUS)
		[ -n "$c1" ] && [ "$c1" -gt "${c0_READ_PLUS:-0}" ] ||
			die "the kernel reads with READ_PLUS, but none reached the server"
		echo "  READ calls during the read: ${r0:-?} -> ${r1:-?}"
		[ "${r1:-0}" = "${r0:-0}" ] ||
			die "READs during the read: the client fell back from READ_PLUS"
	elif [ "${KC_WANT_READ_PLUS:-0}" = 1 ]; then
		die "KC_WANT_READ_PLUS=1 but no CONFIG_NFS_V4_2_READ_PLUS=y in $cfg"
	else
		echo "  (info: no CONFIG_NFS_V4_2_READ_PLUS=y in $cfg: the client reads with READ)"
	fi
	rm -f "$D/sp" || die rm
}

# NFSv4.2 only: FICLONE and FICLONERANGE (kc-clone), each a CLONE to the
# server. Where the export's file system shares blocks (the host marks
# the export with .kc-clone: kernel-nfs42-xfs) the clones must succeed,
# read back right from the server and be copied on write; elsewhere the
# server must answer NOTSUPP (EOPNOTSUPP here), never a clone that did not
# happen. Either way the CLONE is counted in mountstats: it reached the
# server.
s_v42clone() {
	[ -x /bin/kc-clone ] || die "no /bin/kc-clone in the image"
	c0=$(opcount $M CLONE)
	/bin/kc-clone "$D"
	rc=$?
	c1=$(opcount $M CLONE)
	echo "  CLONE calls: ${c0:-?} -> ${c1:-?}"
	[ -n "$c1" ] && [ "$c1" -gt "${c0:-0}" ] || die "no CLONE reached the server"
	if [ -e "$M/.kc-clone" ]; then
		[ $rc = 0 ] || die "kc-clone exit $rc on an export that clones"
		[ "$c1" -ge $((${c0:-0} + 2)) ] || die "one CLONE for FICLONE and FICLONERANGE"
	else
		[ $rc = 3 ] || die "kc-clone exit $rc on an export that cannot clone (want 3: EOPNOTSUPP)"
		echo "  (info: the export shares no blocks: CLONE answered NOTSUPP)"
	fi
	rm -f "$D/cl-src" "$D/cl-dst" || die rm
}

s_remount() {
	umount "$M" || die umount
	grep -q " $M nfs" /proc/mounts && die "still mounted"
	do_mount
	eq "big md5 after remount" "$(md5 "$D/big")" "$(md5 $R/big)"
	cmp $R/a.txt "$D/sub/a3.txt" || die "small file after remount"
	eq "sparse md5 after remount" "$(md5 "$D/sparse")" "$(md5 $R/sparse)"
}

s_rm() {
	rm "$D/big" "$D/mid" "$D/trunc" "$D/sparse" "$D/empty" "$D/victim" "$D/sl" "$D/dangling" "$D/sub/a3.txt" || die rm
	dropcaches
	for f in big mid trunc sparse empty victim sl dangling sub/a3.txt; do
		[ ! -e "$D/$f" ] && [ ! -L "$D/$f" ] || die "$f still exists"
	done
	eq "empty dir" "$(ls -A "$D/sub" | wc -l)" 0
}

s_rmdir() {
	rmdir "$D/sub" || die "rmdir sub"
	mkdir "$D/nonempty" && : > "$D/nonempty/f"
	rmdir "$D/nonempty" 2>/dev/null && die "rmdir of non-empty dir succeeded"
	rm "$D/nonempty/f" && rmdir "$D/nonempty" || die "rmdir nonempty after emptying"
	rmdir "$D" || die "rmdir test dir"
	[ ! -e "$D" ] || die "test dir still exists"
}

s_umount() {
	umount "$M" || die umount
	grep -q " $M nfs" /proc/mounts && die "still mounted"
	true
}

STEPS="mount mountopts mkdir small_files big_write big_read ls_l stat df append overwrite
direct_io rename hardlink symlink chmod truncate sparse readdir_many locks deleg remount rm rmdir
umount"
# 4.2's own operations, before the remount
[ "$KC_VERS" = 4.2 ] && STEPS=$(echo $STEPS | sed 's/ remount / v42xc v42sp v42clone remount /')

if [ "$1" = "--step" ]; then
	"s_$2"
	exit $?
fi

pass=0 fail=0 failed=""
T0=$(up)
echo "KCLIENT: test start: vers=$KC_VERS dir=$D uptime=${T0}s"
for s in $STEPS; do
	t0=$(up)
	# run the step in its own session/process group so that a timeout
	# kills it together with its children (mount, dd, ...)
	setsid sh "$0" --step "$s" > /tmp/step.out 2>&1 &
	pid=$!
	( sleep "$KC_STEPTMO"; kill -KILL -"$pid" 2>/dev/null || kill -KILL "$pid" ) 2>/dev/null &
	wd=$!
	wait $pid
	rc=$?
	kill $wd 2>/dev/null
	t1=$(up)
	dt=$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.2f", b-a}')
	if [ $rc -eq 0 ]; then
		pass=$((pass+1)); echo "KCLIENT PASS: $s (${dt}s)"
	else
		fail=$((fail+1)); failed="$failed $s"
		[ $rc -ge 128 ] && echo "  (killed after ${KC_STEPTMO}s timeout, rc=$rc)" >> /tmp/step.out
		echo "KCLIENT FAIL: $s (${dt}s, rc=$rc)"
	fi
	awk '{ if (substr($0, 1, 2) != "  ") $0 = "  " $0; print }' /tmp/step.out
	if [ $rc -ne 0 ] && [ "$s" = mount ]; then
		echo "KCLIENT: mount failed, skipping the remaining steps"
		break
	fi
	if [ $rc -ge 128 ]; then
		echo "KCLIENT: step $s timed out, skipping the remaining steps"
		break
	fi
done
# If something failed after mounting, try to leave the server clean.
if [ $fail -ne 0 ] && grep -q " $M nfs" /proc/mounts; then
	timeout -s KILL 60 rm -rf "$D" 2>/dev/null
	timeout -s KILL 30 umount -f "$M" 2>/dev/null
fi
T1=$(up)
echo "KCLIENT: test time $(awk -v a=$T0 -v b=$T1 'BEGIN{printf "%.1f", b-a}')s${failed:+, failed:$failed}"
echo "KCLIENT SUMMARY: $pass passed, $fail failed"
