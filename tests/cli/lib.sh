# Sourced by the CLI test scripts: where kbx is, a scratch folder with its own history, and the
# TAP-like checks they print ("ok N - ..." / "not ok N - ..."; fail=1 on any "not ok").
builddir=${KBX_BUILDDIR:-.}
srcdir=${KBX_SRCDIR:-.}
kbx="$builddir/kbx"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KBX_DB="$tmp/history.db"
fail=0
n=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
# expect STATUS DESCRIPTION -- command...; output in $tmp/out, stderr in $tmp/err
expect() {
	want=$1; what=$2; shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$what"; else no "$what (status $got, wanted $want)"; sed 's/^/# /' "$tmp/out" "$tmp/err" | tail -20; fi
}
contains() {  # file pattern description
	if grep -qE -- "$2" "$1"; then ok "$3"; else no "$3 (no /$2/ in $1)"; sed 's/^/# /' "$1" | head -20; fi
}
lacks() {  # file pattern description
	if grep -qE -- "$2" "$1"; then no "$3 (/$2/ in $1)"; sed 's/^/# /' "$1" | head -20; else ok "$3"; fi
}
