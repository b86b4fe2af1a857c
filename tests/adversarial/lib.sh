# Shared by tests/adversarial/static.sh and gpu.sh (sourced, not run).

# header FILE WORD: the text after `// @kbx WORD ` on the first such line
header() {
	sed -n "s|^// @kbx $2 \\(.*\\)\$|\\1|p" "$1" | head -n 1
}

# field JSON-FILE verdict|message|speedup_ref: the verdict, the summary message or the speedup
# vs the reference ("" when there is none) of a `kbx run --json`
field() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
if sys.argv[2] == "verdict":
    print(d["verdict"])
elif sys.argv[2] == "speedup_ref":
    v = d["summary"].get("speedup_ref")
    print("" if v is None or v < 0 else v)
else:
    print(d["summary"]["message"])' "$1" "$2" 2>/dev/null
}

# below VALUE LIMIT: whether VALUE is a number below LIMIT
below() {
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' "$1" "$2" 2>/dev/null
}

# diags JSON-FILE: the compile diagnostics of a `kbx run --json`, one `line N: message` a line
diags() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for g in d.get("compile", {}).get("diags", []):
    print("line %d: %s" % (g.get("line", 0), g.get("message", "")))' "$1" 2>/dev/null
}
