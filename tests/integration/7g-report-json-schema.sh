#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# report --format json against its JSON Schema
# (doc/aperture-report.schema.json, draft 2020-12) with a real validator
# (python3-jsonschema):
# - the stored recordings (tests/golden, tests/fuzz/corpus: every view,
#   no BPF needed), plainly and with the options that add fields
#   (--sort with every key, -g, --per-thread, --hist, --lock-class all);
# - the schema is strict: in each output, a field renamed in the schema
#   member, the header, each view and the first entry of each of its
#   lists fails validation, and so does another schema version;
# - then recordings of every kind made here: cpu, syscall (summed and
#   syscall:calls), lock and lock:pthread, sched, io, mem, gpu through
#   the stand-in CUDA libraries (tests/workloads/fakecuda) and, where
#   libaperture-cupti.so is built, the stand-in CUPTI's device records.
. tests/integration/lib.sh
need_cmd python3
SCHEMA=doc/aperture-report.schema.json
[ -r "$SCHEMA" ] || fail "no $SCHEMA"
# pyenv's python3 may come first on PATH; Debian's has python3-jsonschema
PY=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import jsonschema' 2>/dev/null; then
		PY=$p
		break
	fi
done
[ -n "$PY" ] || skip "needs python3-jsonschema"
mkdir "$T/out" "$T/empty"

n=0
rep() {	# FILE [OPTIONS...]
	f=$1
	shift
	n=$((n + 1))
	"$APERTURE" report -i "$f" --format json --symfs="$T/empty" "$@" \
		>"$T/out/$n.json" 2>"$T/rep.err" ||
		fail "report -i $f $* --format json: $(cat "$T/rep.err")"
	echo "${f#"$T"/} $*" >"$T/out/$n.what"
}

validate() {	# WHAT, then the kinds the outputs must hold between them
	what=$1
	shift
	"$PY" - "$SCHEMA" "$T/out" "$@" <<'PY' || fail "$what: not valid"
import copy, glob, json, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad, seen = 0, set()

def rename_first(obj):
    k = next(iter(obj))
    obj[k + "_renamed"] = obj.pop(k)
    return k

for path in sorted(glob.glob(sys.argv[2] + "/*.json")):
    what = open(path[:-5] + ".what").read().strip()
    d = json.load(open(path))
    errs = sorted(v.iter_errors(d), key=lambda e: e.json_path)
    for e in errs[:5]:
        print("%s: %s: %s" % (what, e.json_path, e.message[:300]))
    bad += bool(errs)
    seen |= set(d) - {"schema", "header"}
    # strictness: one field renamed at a time must fail
    tried = 0
    for m in d:
        cases = [[m]]
        if isinstance(d[m], dict):
            cases += [[m, k, 0] for k, x in d[m].items()
                      if isinstance(x, list) and x and isinstance(x[0], dict)]
        for c in cases:
            dd = copy.deepcopy(d)
            o = dd
            for step in c:
                o = o[step]
            k = rename_first(o)
            tried += 1
            if v.is_valid(dd):
                print("%s: valid with %s renamed at %s" % (what, k, c))
                bad += 1
    dd = copy.deepcopy(d)
    dd["schema"]["version"] = "2.0"
    if v.is_valid(dd):
        print("%s: valid with schema version 2.0" % what)
        bad += 1
    print("%s: %s, %d errors, %d renames refused" % (
        what, ", ".join(k for k in d), len(errs), tried))
missing = set(sys.argv[3:]) - seen
if missing:
    print("no output of", sorted(missing))
    bad += 1
sys.exit(1 if bad else 0)
PY
	rm -f "$T"/out/*
}

# the stored recordings: every view without BPF
for f in tests/golden/*.data tests/fuzz/corpus/*.data; do
	rep "$f"
done
rep tests/fuzz/corpus/cpu.data --sort comm,pid,tid,cpu,dso,sym,srcline -g
rep tests/fuzz/corpus/cpu.data --no-children -g caller
rep tests/fuzz/corpus/syscall.data --per-thread --hist
rep tests/golden/cpu-syscall-sched.data --per-thread --hist -g
rep tests/golden/cpu-lock-io.data --per-thread --lock-class all
rep tests/fuzz/corpus/lock.data --per-thread --lock-class all
validate "stored recordings" cpu syscall lock sched io mem gpu

# recordings made here
need_bpf
rec() {	# NAME EVENTS COMMAND...
	name=$1
	ev=$2
	shift 2
	"$APERTURE" record -q -e "$ev" -o "$T/$name.data" -- "$@" \
		>/dev/null 2>"$T/rec.err" ||
		fail "record -e $ev: $(cat "$T/rec.err")"
}
rec cpu cpu "$WL/cpu_split" 0.3 2
rep "$T/cpu.data"
# with symbols, srcline has file and line
"$APERTURE" report -i "$T/cpu.data" --format json \
	--sort comm,pid,tid,cpu,dso,sym,srcline -g caller >"$T/out/srcline.json" ||
	fail "report --sort ...,srcline"
echo "cpu.data --sort ...,srcline -g caller (symbols)" >"$T/out/srcline.what"
rec sums syscall "$WL/syscall_exact" 2000 5
rep "$T/sums.data" --per-thread --hist
rec calls syscall:calls "$WL/syscall_exact" 2000 5 2
rep "$T/calls.data"
rep "$T/calls.data" --per-thread --hist
rec lock lock "$WL/lock_contend" 5 5
rep "$T/lock.data" --per-thread --lock-class all
rec pthread lock:pthread "$WL/lock_contend" 5 5
rep "$T/pthread.data"
rec sched sched "$WL/offcpu_sleep" n5
"$APERTURE" report -i "$T/sched.data" --format json >"$T/out/sched.json" ||
	fail "report sched"
echo "sched.data (symbols)" >"$T/out/sched.what"
rec io io "$WL/io_pair" 100003 30007
rep "$T/io.data" --per-thread
rec iocalls io:calls "$WL/io_pair" 100003 30007
rep "$T/iocalls.data"
rec mem mem "$WL/mem_touch" 2
rep "$T/mem.data"
rec gpu gpu "$WL/gpu_launch"
rep "$T/gpu.data"
rec all cpu,syscall:calls,sched,lock,io "$WL/io_pair" 100003 30007
rep "$T/all.data"
kinds="cpu syscall lock sched io mem gpu"
if [ -r "$BUILD/libaperture-cupti.so" ] &&
   [ -r "$WL/fakecupti/libcupti.so.13" ]; then
	LD_LIBRARY_PATH=$WL/fakecupti "$APERTURE" record -q -e gpu \
		-o "$T/dev.data" -- "$WL/gpu_device" 2 >/dev/null \
		2>"$T/rec.err" || fail "record gpu_device: $(cat "$T/rec.err")"
	rep "$T/dev.data"
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))["gpu"]
sys.exit(d["device_ns"] is None or not d["memcpy"])' "$T/out/$n.json" ||
		fail "gpu_device with the stand-in CUPTI: no device times"
else
	echo "libaperture-cupti.so not built: no device records"
fi
validate "recorded here" $kinds
exit 0
