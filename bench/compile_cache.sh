#!/bin/sh
# Compile cache: cold vs warm latency of `kbx run TASK --no-perf` (issue 8). For each task, a
# fresh history (cold: NVRTC compiles candidate and reference), then the same run again (warm:
# both come from the cache, no NVRTC call). Prints wall seconds of the whole command, the
# candidate's compile seconds and whether it was a cache hit. Without a GPU the run stops after
# compiling (verdict not_run), which isolates exactly what the cache saves.
# usage: bench/compile_cache.sh [KBX] [TASK...]
kbx=${1:-./kbx}
[ $# -gt 0 ] && shift
tasks=${*:-Activation/gelu MatrixMultiply/matmul Fusion/fused_svd_reconstruct LinearAlgebra/eig Quantization/attention_w8a8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { python3 -c 'import time; print(time.time())'; }
printf '%-34s %10s %10s %8s   %10s %10s %8s\n' task "cold s" "compile s" cached "warm s" "compile s" cached
for t in $tasks; do
	db="$tmp/$(echo "$t" | tr / _).db"
	line=$t
	for pass in cold warm; do
		a=$(now)
		"$kbx" --db "$db" run "$t" --no-perf --no-derived --json >"$tmp/out.json" 2>/dev/null
		b=$(now)
		info=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["compile"]; print("%.3f %s" % (c["seconds"], "yes" if c["cached"] else "no"))' "$tmp/out.json")
		line="$line $(python3 -c "print('%.3f' % ($b - $a))") $info"
	done
	echo "$line" | awk '{ printf "%-34s %10s %10s %8s   %10s %10s %8s\n", $1, $2, $3, $4, $5, $6, $7 }'
done
