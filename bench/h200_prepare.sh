#!/bin/sh
# Lay out .carry/ for the device calls of bench/h200_steps.sh: build here (the device has no -dev
# headers), then copy the binary, the Python worker's library beside it, the shared libraries
# the device lacks, and KernelBenchX's tree (../shared does not travel). Name ".carry" in the
# call's carry, and on the device: export LD_LIBRARY_PATH=$PWD/.carry/lib, then
# OUT=$OUT sh bench/h200_steps.sh STEP .carry/bin/kbx .carry/kbxref.
# usage: bench/h200_prepare.sh [KERNELBENCHX_DIR]   (default ../shared/kbx)
set -eu
cd "$(dirname "$0")/.."
ref=${1:-../shared/kbx}
[ -d "$ref/tasks" ] || { echo "h200_prepare: no KernelBenchX tree at $ref" >&2; exit 2; }
./bootstrap.sh >/dev/null
rm -rf .carry
mkdir -p .carry/bin/py .carry/lib
cp kbx .carry/bin/
cp py/libkbxpy.so .carry/bin/py/
# the unit tests whose GPU parts only a device runs (make check skips them here)
mkdir -p .carry/bin/tests
make -s tests/core/test_gpucompare tests/core/test_gpuprop >/dev/null
cp tests/core/test_gpucompare tests/core/test_gpuprop .carry/bin/tests/
# what kbx and those tests link that the device's Ubuntu lacks (it has ncursesw, sqlite3 and pcre2)
for lib in $(ldd kbx tests/core/test_gpuprop | awk '/libjansson|libinih|libcmocka/ { print $3 }' | sort -u); do
	cp "$lib" .carry/lib/
done
cp -r "$ref" .carry/kbxref
echo "h200_prepare: .carry holds $(du -sh .carry | cut -f1): $(ls .carry/bin .carry/lib | tr '\n' ' ')"
