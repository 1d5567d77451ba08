#!/bin/sh
# The kernel client's recovery when the server restarts under it, run in
# the guest by /init (run.sh -T reclaim; the host side is
# run-reclaim.sh): a file open and locked (kc-lock hold) while the host
# kills the server with SIGKILL and starts it again; the descriptor's
# write and unlock after that work only if the client reclaimed its open
# and lock in the new server's grace period.

M=/mnt/nfs
F=$M/reclaim-file
READY=$M/reclaim-ready

case "$KC_VERS" in
4*) o="vers=$KC_VERS,proto=tcp,port=$KC_PORT,sec=sys,addr=$KC_SERVER,clientaddr=0.0.0.0" ;;
*) echo "KCLIENT FAIL: reclaim needs NFSv4 (vers=$KC_VERS)"; echo "KCLIENT SUMMARY: 0 passed, 1 failed"; exit 0 ;;
esac
[ -n "$KC_EXTRA" ] && o="$o,$KC_EXTRA"
pass=0 fail=0
step() {  # step NAME RESULT
	if [ "$2" = 0 ]; then pass=$((pass+1)); echo "KCLIENT PASS: $1"
	else fail=$((fail+1)); echo "KCLIENT FAIL: $1"; fi
}

mount -t nfs4 -o "$o" "$KC_SERVER:$KC_EXPORT" $M
step mount $?
if [ $fail = 0 ]; then
	/bin/kc-lock hold $F $READY 15
	step "open and lock held across a server restart (write, fsync, unlock after it)" $?
	got=$(cat $F 2>&1)
	[ "$got" = "$(printf 'before\nafter')" ]
	step "the file holds what was written before and after the restart" $?
	rm -f $F $READY
	umount $M
	step umount $?
fi
echo "KCLIENT SUMMARY: $pass passed, $fail failed"
