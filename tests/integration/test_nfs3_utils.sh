#!/bin/bash
# SPDX-License-Identifier: MIT
# TAP integration test of nfsxd with Debian's libnfs-utils: copies a tree
# OUT of an export with nfs-cp, one file at a time, walking it with a
# recursive nfs-ls, and compares the sha256sum of every file with the
# original; checks that nfs-ls lists every name of the tree (and nothing
# else) and that the sizes and modes it shows are the local ones. A skip
# when nfs-ls/nfs-cp are not installed or when not run as root (the
# export is `secure`: libnfs binds a privileged port only as root).
#
# Usage: test_nfs3_utils.sh NFSXD

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"

if ! command -v nfs-ls >/dev/null || ! command -v nfs-cp >/dev/null; then
	echo "1..0 # SKIP nfs-ls / nfs-cp not installed (Debian libnfs-utils)"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP needs root (secure export: privileged source port)"
	exit 0
fi

chmod 755 "$WORK"
EXP=$WORK/export
OUT=$WORK/copy
mkdir -p "$EXP" "$OUT"

# The tree: nested directories, empty and odd-sized files, sizes around
# the 1 MiB transfer size, names with spaces and UTF-8, a symlink (listed,
# not copied) and an empty directory.
python3 - "$EXP" <<'PY' || { echo "Bail out! cannot build the tree"; exit 1; }
import os, sys
root = sys.argv[1]
sizes = [0, 1, 4095, 4096, 4097, 65536, 131071, 1048575, 1048576, 1048577,
         3 * 1048576 + 17]
dirs = ["", "sub", "sub/deeper", "sub/deeper/deepest", "with space",
        "\u00fcnic\u00f6de-\u65e5\u672c", "empty"]
for d in dirs:
    os.makedirs(os.path.join(root, d), exist_ok=True)
n = 0
for d in dirs[:-1]:
    for s in sizes:
        name = "f%02d-%d%s" % (n, s, " spaced" if n % 3 == 0 else "")
        with open(os.path.join(root, d, name), "wb") as f:
            f.write(os.urandom(s))
        n += 1
for i in range(300):
    with open(os.path.join(root, "sub", "small-%03d" % i), "wb") as f:
        f.write(os.urandom(i))
with open(os.path.join(root, "L" * 255), "wb") as f:
    f.write(b"long name\n")
os.symlink("sub/deeper", os.path.join(root, "link"))
PY
chmod -R a+rX "$EXP"

pick_port P || { echo "Bail out! no free port"; exit 1; }
start_nfsxd utils --no-rpcbind --port "$P" --bind 127.0.0.1 --log-level warn \
	--export "$EXP"
PID=$SERVER_PID
if ! wait_port "$P" 10 "$PID"; then
	echo "Bail out! nfsxd did not start listening on 127.0.0.1:$P"
	show_log utils
	exit 1
fi

Q="nfsport=$P&mountport=$P&version=3"
URL="nfs://127.0.0.1$EXP"

# nfs-ls -l line: MODE NLINK UID GID SIZE NAME (NAME may hold spaces).
LS=$WORK/ls.txt
timeout 120 nfs-ls -R "$URL?$Q" >"$LS" 2>"$WORK/ls.err"
tap_ok $? "nfs-ls -R of the export exits 0" || tap_diag <"$WORK/ls.err"

sed -E 's/^[^ ]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ //' "$LS" | LC_ALL=C sort >"$WORK/nfs-names"
(cd "$EXP" && find . -mindepth 1 -printf '%P\n') | LC_ALL=C sort >"$WORK/local-names"
n_local=$(wc -l <"$WORK/local-names")
if cmp -s "$WORK/nfs-names" "$WORK/local-names"; then st=0; else st=1; fi
tap_ok $st "nfs-ls -R lists every name of the tree once, nothing else ($n_local names)" ||
	diff "$WORK/local-names" "$WORK/nfs-names" | head -20 | tap_diag
dups=$(uniq -d "$WORK/nfs-names" | wc -l)
tap_ok $((dups != 0)) "no name listed twice ($dups)"

# Sizes and types as shown by nfs-ls against the local files.
bad=0
while IFS= read -r line; do
	mode=${line%% *}
	rest=$(sed -E 's/^[^ ]+ +[0-9]+ +[0-9]+ +[0-9]+ +//' <<<"$line")
	size=${rest%% *}
	name=${rest#* }
	lmode=$(stat -c %A "$EXP/$name")
	lsize=$(stat -c %s "$EXP/$name")
	if [ "$mode" != "$lmode" ] || { [ "${mode:0:1}" = - ] && [ "$size" != "$lsize" ]; }; then
		bad=$((bad + 1))
		[ $bad -le 5 ] && tap_diag "'$name': nfs-ls $mode $size, local $lmode $lsize"
	fi
done <"$LS"
tap_ok $((bad != 0)) "nfs-ls shows each entry's mode and size as the local file ($bad differ)"

# nfs-ls (not recursive) of the export root and of a subdirectory.
nfs-ls "$URL?$Q" 2>/dev/null | sed -E 's/^[^ ]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ //' |
	LC_ALL=C sort >"$WORK/top-nfs"
(cd "$EXP" && find . -mindepth 1 -maxdepth 1 -printf '%P\n') | LC_ALL=C sort >"$WORK/top-local"
cmp -s "$WORK/top-nfs" "$WORK/top-local"
tap_ok $? "nfs-ls of the export root lists its $(wc -l <"$WORK/top-local") names"
nfs-ls "nfs://127.0.0.1$EXP/sub?$Q" 2>/dev/null | sed -E 's/^[^ ]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ //' |
	LC_ALL=C sort >"$WORK/sub-nfs"
(cd "$EXP/sub" && find . -mindepth 1 -maxdepth 1 -printf '%P\n') | LC_ALL=C sort >"$WORK/sub-local"
cmp -s "$WORK/sub-nfs" "$WORK/sub-local"
tap_ok $? "nfs-ls of nfs://host/EXPORT/sub (a MNT of a subdirectory of the export) lists its $(wc -l <"$WORK/sub-local") names"

# Copy every regular file out with nfs-cp, following the nfs-ls walk.
# nfs-cp (libnfs 4.0) mounts the URL's directory part and opens the last
# component: a file in a subdirectory means a MNT of that subdirectory of
# the export, which Linux's rpc.mountd answers. Top-level files and files
# in subdirectories are counted apart so that a failure says which.
: >"$WORK/cp.failed"
top_ok=0 top_n=0 sub_ok=0 sub_n=0
while IFS= read -r line; do
	name=$(sed -E 's/^[^ ]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ //' <<<"$line")
	case ${line:0:1} in
	d) mkdir -p "$OUT/$name"; continue ;;
	-) ;;
	*) continue ;;
	esac
	mkdir -p "$OUT/$(dirname "$name")"
	case $name in */*) sub_n=$((sub_n + 1)) ;; *) top_n=$((top_n + 1)) ;; esac
	if timeout 60 nfs-cp "nfs://127.0.0.1$EXP/$name?$Q" "$OUT/$name" \
		>/dev/null 2>>"$WORK/cp.err"; then
		case $name in */*) sub_ok=$((sub_ok + 1)) ;; *) top_ok=$((top_ok + 1)) ;; esac
	else
		printf '%s\n' "$name" >>"$WORK/cp.failed"
	fi
done <"$LS"
n_files=$(find "$EXP" -type f | wc -l)
tap_ok $((top_n != top_ok || top_n == 0)) \
	"nfs-cp copies every file at the export's top level ($top_ok of $top_n)"
tap_ok $((sub_n != sub_ok || sub_n == 0)) \
	"nfs-cp copies every file in subdirectories, mounting nfs://host/EXPORT/SUBDIR ($sub_ok of $sub_n)" || {
	head -3 "$WORK/cp.failed" | sed "s/.*/failed: '&'/" | tap_diag
	head -2 "$WORK/cp.err" | tap_diag
}
tap_ok $((top_n + sub_n != n_files)) "the nfs-ls walk found every regular file ($((top_n + sub_n)) of $n_files)"


(cd "$EXP" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) >"$WORK/sum-local"
(cd "$OUT" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum) >"$WORK/sum-copy"
cmp -s "$WORK/sum-local" "$WORK/sum-copy"
tap_ok $? "sha256sum of every file of the tree equals the original's ($(wc -l <"$WORK/sum-copy") of $(wc -l <"$WORK/sum-local") files)" ||
	diff "$WORK/sum-local" "$WORK/sum-copy" | head -10 | tap_diag

# nfs-cat of one file, and of a missing one (must fail).
nfs-cat "nfs://127.0.0.1$EXP/$(cd "$EXP" && ls | grep '^L')?$Q" >"$WORK/cat.out" 2>/dev/null
cmp -s "$WORK/cat.out" "$EXP/$(cd "$EXP" && ls | grep '^L')"
tap_ok $? "nfs-cat of the file with a 255-byte name"
nfs-cat "nfs://127.0.0.1$EXP/no-such-file?$Q" >/dev/null 2>&1
tap_ok $(($? == 0)) "nfs-cat of a missing file fails"

alive "$PID"
tap_ok $? "nfsxd still running"
stop_nfsxd "$PID" "$STOP_TMO" && [ "$STOP_STATUS" -eq 0 ]
tap_ok $? "nfsxd exits 0 on SIGTERM (status $STOP_STATUS, ${STOP_MS} ms)" ||
	sed 's/^/# /' "$WORK"/*.log
logs_clean
tap_ok $? "no sanitizer report in the nfsxd log" || show_log utils
tap_done
