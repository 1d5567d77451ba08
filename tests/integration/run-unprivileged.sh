#!/bin/bash
# SPDX-License-Identifier: MIT
# Meson wrapper for the unprivileged test: starts nfsxd as nobody
# (setpriv) on a free 127.0.0.1 port with an export and a state directory
# owned by nobody, runs test_unprivileged (its TAP output is this test's),
# which restarts the server through $WORK/restart.sh, then stops it.
# Needs root to switch to nobody: otherwise a skip.
#
# Usage: run-unprivileged.sh NFSXD TEST_UNPRIVILEGED

. "$(dirname "$0")/lib.sh"

need_nfsxd "${1:-}"
TEST=$(realpath "${2:?usage: run-unprivileged.sh NFSXD TEST_UNPRIVILEGED}")

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	echo "1..0 # SKIP needs root and setpriv (util-linux) to run nfsxd as nobody"
	exit 0
fi
NOBODY_UID=$(id -u nobody) || { echo "Bail out! no user nobody"; exit 1; }
NOBODY_GID=$(id -g nobody)

chmod 755 "$WORK"
EXP=$WORK/export
mkdir -p "$EXP" "$WORK/ustate" || exit 1
chown "$NOBODY_UID:$NOBODY_GID" "$EXP" "$WORK/ustate"
chmod 700 "$WORK/ustate"
rm -rf /tmp/nfsx-escape

pick_port P || { echo "Bail out! no free port"; exit 1; }

cat >"$WORK/start.sh" <<EOS
#!/bin/bash
setpriv --reuid=$NOBODY_UID --regid=$NOBODY_GID --clear-groups \\
	${NFSXD_WRAPPER:-} "$NFSXD" --foreground --no-rpcbind --port $P --bind 127.0.0.1 \\
	--log-level info --state-dir "$WORK/ustate" --export "$EXP:rw,insecure" \\
	>>"$WORK/unpriv.log" 2>&1 &
echo \$! >"$WORK/unpriv.pid"
EOS
cat >"$WORK/restart.sh" <<EOS
#!/bin/bash
pid=\$(cat "$WORK/unpriv.pid")
kill -TERM "\$pid"
for i in \$(seq 100); do kill -0 "\$pid" 2>/dev/null || break; sleep 0.05; done
bash "$WORK/start.sh"
for i in \$(seq 200); do
	(exec 3<>/dev/tcp/127.0.0.1/$P) 2>/dev/null && exit 0
	sleep 0.05
done
exit 1
EOS
bash "$WORK/start.sh"
PID=$(cat "$WORK/unpriv.pid")
if ! wait_port "$P" 10 "$PID"; then
	echo "Bail out! unprivileged nfsxd did not start listening on 127.0.0.1:$P"
	sed 's/^/# /' "$WORK/unpriv.log"
	exit 1
fi

"$TEST" "$P" "$EXP" "bash $WORK/restart.sh" "$NOBODY_UID"
rc=$?

PID=$(cat "$WORK/unpriv.pid")
status=0
if ! kill -0 "$PID" 2>/dev/null; then
	echo "# nfsxd died during the test"
	status=1
fi
kill -TERM "$PID" 2>/dev/null
for i in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$PID" 2>/dev/null; then
	echo "# nfsxd did not stop on SIGTERM"
	kill -KILL "$PID"
	status=1
fi
grep -q "not running as root" "$WORK/unpriv.log" || { echo "# no unprivileged-mode warning in the log"; status=1; }
if grep -Eq "ERROR: (Address|Leak|Thread|Undefined)Sanitizer|runtime error:" "$WORK/unpriv.log"; then
	echo "# sanitizer report in the nfsxd log"
	status=1
fi
rm -rf /tmp/nfsx-escape
if [ "$rc" -ne 0 ] || [ "$status" -ne 0 ]; then
	sed 's/^/# /' "$WORK/unpriv.log"
	exit 1
fi
exit 0
