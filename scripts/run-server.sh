#!/usr/bin/env bash
# Install what is missing, build, and run nfsxd in the foreground on
# 127.0.0.1:2049 with the default export /srv/nfsx (Ctrl-C stops it).
# The export is rw and insecure, so that an unprivileged client such as
# nfs-ls run by a normal user may mount it; root is squashed.
# Extra arguments go to nfsxd, e.g. scripts/run-server.sh --log-level debug
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh build
[ -f build/build.ninja ] || meson setup build --buildtype=debugoptimized
ninja -C build
export_dir=${NFSX_EXPORT:-/srv/nfsx}
if [ ! -d "$export_dir" ]; then
	# Like /tmp: anyone may create files, only owners remove them, so
	# that a client's squashed root and normal users can both write.
	mkdir -p "$export_dir"
	chmod 1777 "$export_dir"
fi
[ -e "$export_dir/README" ] || echo "Served by nfsxd." > "$export_dir/README"
state_dir=/var/lib/nfsx
[ "$(id -u)" -eq 0 ] || state_dir=${XDG_STATE_HOME:-$HOME/.local/state}/nfsx
exec build/src/server/nfsxd --foreground --bind 127.0.0.1 --port 2049 \
	--export "$export_dir:rw,insecure" --state-dir "$state_dir" "$@"
