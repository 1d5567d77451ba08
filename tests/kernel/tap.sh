# Sourced by run-kernel.sh and run-reclaim.sh: the guest's KCLIENT lines
# as TAP.
#
# kclient_tap OUT VERS RC: one TAP line per "KCLIENT PASS/FAIL" line of
# OUT (run.sh's output), numbered on from $n; when no step ran or run.sh
# (exit status RC) failed, one line for that and the tail of OUT and of
# the guest's logs in $WORK/logs as comments.
kclient_tap() {
	local out=$1 vers=$2 rc=$3 first=$n line f
	while IFS= read -r line; do
		case $line in
		"KCLIENT PASS: "*)
			n=$((n + 1))
			echo "ok $n - NFSv$vers kernel client: ${line#KCLIENT PASS: }" ;;
		"KCLIENT FAIL: "*)
			n=$((n + 1))
			echo "not ok $n - NFSv$vers kernel client: ${line#KCLIENT FAIL: }" ;;
		esac
	done <"$out"
	if [ "$n" -eq "$first" ] || [ "$rc" -ne 0 ]; then
		n=$((n + 1))
		[ "$rc" -eq 0 ] && echo "ok $n - run.sh exit status" ||
			echo "not ok $n - run.sh exit status $rc"
		sed 's/^/# /' "$out" | tail -40
		for f in "$WORK"/logs/*.log; do
			[ -f "$f" ] && { echo "# --- $f (tail) ---"; tail -30 "$f" | sed 's/^/# /'; }
		done
	fi
}
