#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerate the committed XDR codecs src/xdr/gen/NAME.{h,c} from
# proto/NAME.x. Run after editing proto/*.x or tools/xdrgen; the test
# xdr-generated-up-to-date fails until the output is committed.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
for x in "$root"/proto/*.x; do
	name=$(basename "$x" .x)
	"$python" "$root/tools/xdrgen/xdrgen.py" "$x" \
		--header "$root/src/xdr/gen/$name.h" \
		--source "$root/src/xdr/gen/$name.c"
	echo "regenerated src/xdr/gen/$name.h src/xdr/gen/$name.c"
done
