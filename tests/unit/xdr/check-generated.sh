#!/bin/sh
# SPDX-License-Identifier: MIT
# Test xdr-generated-up-to-date: regenerate every proto/NAME.x into a
# temporary directory and compare with the committed src/xdr/gen/NAME.*;
# any difference (or a generated file without its .x) fails.
# Usage: check-generated.sh SOURCE_ROOT [PYTHON]
set -u
root=$1
python=${2:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for x in "$root"/proto/*.x; do
	name=$(basename "$x" .x)
	if ! "$python" "$root/tools/xdrgen/xdrgen.py" "$x" \
		--header "$tmp/$name.h" --source "$tmp/$name.c"; then
		echo "xdrgen failed on proto/$name.x"
		status=1
		continue
	fi
	for ext in h c; do
		if ! diff -u "$root/src/xdr/gen/$name.$ext" "$tmp/$name.$ext"; then
			echo "src/xdr/gen/$name.$ext is stale: run scripts/regen-xdr.sh"
			status=1
		fi
	done
done
for f in "$root"/src/xdr/gen/*.h "$root"/src/xdr/gen/*.c; do
	name=$(basename "$f")
	name=${name%.*}
	if [ ! -e "$root/proto/$name.x" ]; then
		echo "src/xdr/gen/$(basename "$f") has no proto/$name.x"
		status=1
	fi
done
[ $status -eq 0 ] && echo "src/xdr/gen matches proto/*.x"
exit $status
