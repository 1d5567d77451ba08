#!/bin/bash
# SPDX-License-Identifier: MIT
# The public header of libnfsx (and the XDR headers it includes) must
# compile as C++ too: C++ callers are the library's users as much as C
# ones. Skipped when no C++ compiler is installed.
# Usage: header_cxx.sh SRC_DIR
src=${1:?usage: header_cxx.sh SRC_DIR}
cxx=${CXX:-c++}
if ! command -v "$cxx" >/dev/null; then
	echo "1..0 # SKIP no C++ compiler ($cxx)"
	exit 0
fi
out=$(printf '#include "client/nfsx.h"\nint main() { struct nfsx_opts o; nfsx_opts_init(&o); return 0; }\n' |
	"$cxx" -std=c++17 -fsyntax-only -Wall -Wextra -Werror -I "$src" -x c++ - 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	echo "ok 1 - client/nfsx.h compiles as C++17 with -Wall -Wextra -Werror"
else
	echo "not ok 1 - client/nfsx.h compiles as C++17 with -Wall -Wextra -Werror"
	printf '%s\n' "$out" | head -20 | sed 's/^/# /'
fi
echo "1..1"
exit $rc
