#!/bin/sh
# Set up a kbx build on Debian: install what is missing, generate the build system, configure, make.
# Idempotent: a second run installs nothing, and re-runs configure only when needed.
#
#   ./bootstrap.sh              then ./kbx, or make check
#   KBX_CONFIGURE_FLAGS="--enable-debug" ./bootstrap.sh
set -eu
cd "$(dirname "$0")"

PACKAGES="build-essential autoconf automake pkg-config libncurses-dev libsqlite3-dev libpcre2-dev \
libjansson-dev libinih-dev libcmocka-dev tmux python3"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "bootstrap: installing$missing"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	autoreconf -fi
fi
if [ ! -f Makefile ] || [ configure -nt config.status ]; then
	./configure ${KBX_CONFIGURE_FLAGS:-}
fi
make -j"$(nproc 2>/dev/null || echo 2)"
