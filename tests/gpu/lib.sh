# Sourced by the GPU test scripts: where kbx is, a scratch folder with its own history, and
# need_gpu, which ends the test with automake's "skipped" (77) on a machine without a CUDA device
# (or without python3, which the scripts use to read --json).
builddir=${KBX_BUILDDIR:-.}
srcdir=${KBX_SRCDIR:-.}
kbx="$builddir/kbx"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KBX_DB="$tmp/history.db"

need_gpu() {
	if ! "$kbx" doctor >"$tmp/doctor" 2>&1 || ! grep -q '^gpu  *ok' "$tmp/doctor"; then
		echo "SKIP: no CUDA device"
		cat "$tmp/doctor"
		exit 77
	fi
	command -v python3 >/dev/null || { echo "SKIP: python3 needed to read --json"; exit 77; }
}
