#!/bin/sh
# tests/fuzz.sh - a short run of every parser's fuzz target (fuzz/run.sh, 20000 executions
# each from the seed corpora, fixed seed), so that a parser change that crashes, leaks or trips
# a sanitizer on inputs near the seeds fails `make check`.
#
# Needs clang with libFuzzer; without it the same targets are built with $CC and ASan+UBSan
# (FUZZ_ENGINE=replay) and replay the seed corpora once; if neither builds, the test is skipped
# (exit 77). KBX_FUZZ_RUNS changes the number of executions, FUZZ_FLAGS the libFuzzer flags.
set -u

src=${KBX_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${KBX_BUILDDIR:-.}/fuzz-build
runs=${KBX_FUZZ_RUNS:-20000}
mkdir -p "$build" || exit 1
probe=$(mktemp -d) || exit 1
trap 'rm -rf "$probe"' EXIT

# can this compiler link a program with these sanitizers?
links() { # cc flags main  (flags are split on blanks on purpose)
	# shellcheck disable=SC2086
	printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n%s\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return d == NULL && n; }\n' \
		"$3" > "$probe/probe.c" &&
		$1 $2 "$probe/probe.c" -o "$probe/probe" >/dev/null 2>&1
}

if command -v clang >/dev/null 2>&1 && links clang "-fsanitize=fuzzer,address,undefined" ""; then
	FUZZ_FLAGS=${FUZZ_FLAGS:--seed=1} "$src/fuzz/run.sh" -r "$runs" -b "$build/libfuzzer" || exit 1
	exit 0
fi

cc=${CC:-cc}
if ! links "$cc" "-fsanitize=address,undefined" "int main(void) { return 0; }"; then
	echo "SKIP: neither clang with libFuzzer nor $cc with ASan+UBSan can link"
	exit 77
fi
echo "no libFuzzer: replaying the seed corpora with $cc"
FUZZ_ENGINE=replay CC=$cc "$src/fuzz/build.sh" "$build/replay" || exit 1
status=0
for t in task launch theme events expr cubin refout; do
	"$build/replay/replay_$t" "$src/fuzz/corpus/fuzz_$t" || status=1
done
exit $status
