#!/usr/bin/env python3
"""Convert KernelBenchX-style golden folders (one JSON per task) into kbx's tables.

usage: tools/golden_import.py SRC_DIR OUT_DIR

SRC_DIR holds one folder per GPU (4090, a100, h200, ...), each with <task>.json files: lists of
{"input_size": ..., "ms": ..., "GB/s": ..., "TFLOPS": ...}. OUT_DIR gets one <gpu>.json per GPU:

    {"gpu": "h200", "device_names": ["NVIDIA H200"], "tasks": {"gelu": [{"input_size": [4096],
     "ms": 0.00432, "gbps": 7.58, "tflops": 0.0076}, ...], ...}}

device_names are the CUDA device names that select this table (matched case-insensitively as
substrings of cuDeviceGetName).
"""
import json
import os
import sys

DEVICE_NAMES = {
    "4090": ["RTX 4090"],
    "5090": ["RTX 5090"],
    "a100": ["A100"],
    "h20": ["H20"],
    "h200": ["H200"],
    "h800": ["H800"],
    "l20": ["L20"],
}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for gpu in sorted(os.listdir(src)):
        folder = os.path.join(src, gpu)
        if not os.path.isdir(folder):
            continue
        tasks = {}
        for f in sorted(os.listdir(folder)):
            if not f.endswith(".json"):
                continue
            with open(os.path.join(folder, f)) as fh:
                rows = json.load(fh)
            tasks[f[:-5]] = [{"input_size": r["input_size"], "ms": r["ms"],
                              "gbps": r.get("GB/s"), "tflops": r.get("TFLOPS")} for r in rows]
        table = {"gpu": gpu, "device_names": DEVICE_NAMES.get(gpu, [gpu]), "tasks": tasks}
        with open(os.path.join(out, gpu + ".json"), "w") as fh:
            json.dump(table, fh, separators=(",", ":"), sort_keys=True)
            fh.write("\n")
        print(f"{gpu}: {len(tasks)} tasks")


if __name__ == "__main__":
    main()
