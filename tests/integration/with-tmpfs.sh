#!/bin/bash
# SPDX-License-Identifier: MIT
# Run a test wrapper with its scratch directory (and so its exports) on
# tmpfs: /dev/shm when it is one, else a tmpfs mounted for the run (root).
# Usage: with-tmpfs.sh WRAPPER ARGS...
wrapper=${1:?usage: with-tmpfs.sh WRAPPER ARGS...}
shift
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ]; then
	TMPDIR=/dev/shm exec bash "$wrapper" "$@"
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP no writable tmpfs (/dev/shm) and not root"
	exit 0
fi
dir=$(mktemp -d) || exit 1
if ! mount -t tmpfs -o size=8g tmpfs "$dir"; then
	echo "Bail out! cannot mount a tmpfs on $dir"
	rmdir "$dir"
	exit 1
fi
TMPDIR=$dir bash "$wrapper" "$@"
rc=$?
umount "$dir" && rmdir "$dir"
exit $rc
