# Shared by tests/adversarial/static.sh and gpu.sh (sourced, not run).

# header FILE WORD: the text after `// @kbx WORD ` on the first such line
header() {
	sed -n "s|^// @kbx $2 \\(.*\\)\$|\\1|p" "$1" | head -n 1
}

# field JSON-FILE verdict|message: the verdict or the summary message of a `kbx run --json`
field() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(d["verdict"] if sys.argv[2] == "verdict" else d["summary"]["message"])' "$1" "$2" 2>/dev/null
}

# diags JSON-FILE: the compile diagnostics of a `kbx run --json`, one `line N: message` a line
diags() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for g in d.get("compile", {}).get("diags", []):
    print("line %d: %s" % (g.get("line", 0), g.get("message", "")))' "$1" 2>/dev/null
}
