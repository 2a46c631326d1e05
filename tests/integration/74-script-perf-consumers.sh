#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What reads perf script's output reads aperture script's: cpu_split
# (60/30/10 % of its CPU time in burn_60, burn_30, burn_10, called from
# main through work) recorded by aperture and by perf, both scripts read
# by the rules of three consumers, written out here: FlameGraph's
# stackcollapse-perf.pl (an event line, the first event type only,
# weighed by its period; frames "^\s*(\w+)\s*(.+) \((.*)\)", +0x
# offsets stripped; a blank line ends a stack), speedscope's importer
# (src/import/linux-tools-perf.ts: blocks between blank lines, a first
# line that starts with no blank, a time, one event type; frames
# "\((\S*)\)") and the Firefox Profiler's (linux-perf.js:
# isPerfScriptFormat on the first line, then its sample parser).  Each
# must take every sample of aperture's and give the workload's shares,
# as it does of perf's, and the frames of work and main under the burn_*
# are perf's own lines; stackcollapse-perf.pl itself too where installed.
. tests/integration/lib.sh
need_bpf
need_cmd python3
need_cmd perf

"$APERTURE" record -F 999 -o "$T/a.data" -- "$WL/cpu_split" 3 \
	>/dev/null 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" script -i "$T/a.data" >"$T/a.txt" 2>"$T/err" ||
	fail "script: $(cat "$T/err")"
"$APERTURE" script -i "$T/a.data" --format jsonl --events cpu >"$T/a.jsonl" ||
	fail "script --format jsonl"
samples=$(grep '"event": "cpu"' "$T/a.jsonl" | grep -c '"stack": ')
head -7 "$T/a.txt"

# perf's own, the reference the same rules must read alike; perf 6.1
# sometimes dies of a signal (68-cpu-inline-rows.sh): then none
perf_txt=
perf record -q --buildid-mmap -g -F 999 -o "$T/p.data" -- "$WL/cpu_split" 3 \
	>/dev/null 2>"$T/perf.err"
rc=$?
if [ $rc -gt 128 ]; then
	echo "perf record died of signal $((rc - 128)): no comparison with perf"
elif [ $rc -ne 0 ]; then
	fail "perf record: $(cat "$T/perf.err")"
else
	perf script -i "$T/p.data" >"$T/p.txt" 2>"$T/perf.err"
	rc=$?
	if [ $rc -gt 128 ]; then
		echo "perf script died of signal $((rc - 128)): no comparison with perf"
	else
		[ $rc -eq 0 ] || fail "perf script: $(cat "$T/perf.err")"
		perf_txt=$T/p.txt
	fi
fi

cat >"$T/consumers.py" <<'PY'
import re, sys

def stackcollapse(text):
    """stackcollapse-perf.pl's main loop (FlameGraph master): {folded
    stack: summed periods}, the event folded, the lines it warns it does
    not recognise"""
    folded, counts, stack, pname, period = {}, {}, [], None, 1
    unrecognized = []
    event_filter = None
    for line in text.split("\n"):
        if line.startswith("#"):
            continue
        if line == "":
            if pname is None:
                continue
            if stack:
                key = ";".join([pname] + stack)
                folded[key] = folded.get(key, 0) + period
                counts[key] = counts.get(key, 0) + 1
            stack, pname = [], None
            continue
        m = re.match(r"^(\S.+?)\s+(\d+)/*(\d+)*\s+", line)
        if m:
            ev = re.search(r":\s*(\d+)*\s+(\S+):\s*$", line)
            period = 1
            if ev:
                if event_filter is None:
                    event_filter = ev.group(2)
                elif ev.group(2) != event_filter:
                    continue
                period = int(ev.group(1) or 0) or 1
            pname = m.group(1).replace(" ", "_")
            continue
        m = re.match(r"^\s*(\w+)\s*(.+) \((.*)\)", line)
        if m:
            if pname is None:
                continue
            func, mod = re.sub(r"\+0x[\da-f]+$", "", m.group(2)), m.group(3)
            if func.startswith("("):
                continue
            if func == "[unknown]":
                func = "[%s]" % (mod.split("/")[-1]
                                 if mod != "[unknown]" else "unknown")
            func = func.replace(";", ":")
            if not re.search(r"\.\(.*\)\.", func):
                func = re.sub(r"\((?!anonymous namespace\)).*", "", func)
            stack.insert(0, func.replace('"', "").replace("'", ""))
            continue
        unrecognized.append(line)
    return folded, counts, event_filter, unrecognized

def speedscope(text):
    """importFromLinuxPerf: {profile name: [stacks root first]}"""
    blocks, pending = [], []
    for line in text.split("\n"):
        if line == "":
            if pending:
                blocks.append(pending)
            pending = []
        else:
            pending.append(line)
    if pending:
        blocks.append(pending)
    profiles, event_type = {}, None
    for b in blocks:
        lines = [l for l in b if not re.match(r"^\s*#", l)]
        if not lines:
            continue
        first = lines.pop(0)
        m = re.match(r"^(\S.+?)\s+(\d+)(?:/?(\d+))?\s+", first)
        if not m:
            continue
        t = re.search(r"\s+(\d+\.\d+):\s+", first)
        ev = re.search(r"(\S+):\s*$", first)
        ev = ev.group(1) if ev else ""
        if event_type is not None and ev != event_type:
            continue
        if t is None:
            continue
        event_type = ev
        stack = []
        for l in lines:
            f = re.match(r"^\s*(\w+)\s*(.+) \((\S*)\)", l)
            if f:
                stack.append(re.sub(r"\+0x[\da-f]+$", "", f.group(2)))
        stack.reverse()
        name = m.group(1) + (" pid: %s tid: %s" % (m.group(2), m.group(3))
                             if m.group(3) else " tid: " + m.group(2))
        profiles.setdefault(name, []).append(stack)
    return profiles, event_type

def firefox(text):
    """isPerfScriptFormat, then convertPerfScriptProfile's samples"""
    if text.startswith("# ========\n"):
        ok = True
    elif text.startswith("{"):
        ok = False
    else:
        first = text[:text.index("\n")]
        ok = bool(re.match(r"^\S.*?\s+(?:\d+/)?\d+\s+(?:\[\d+\]\s+)?[\d.]+:",
                           first))
    samples, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line == "" or line.startswith("#"):
            continue
        m = re.match(r"^(.*)\s+([\d.]+):", line)
        if not m or not re.match(r"^(.*)\s+(?:(\d+)/)?(\d+)\b", m.group(1)):
            continue
        stack = []
        while i < len(lines):
            f = lines[i]
            i += 1
            if f.strip() == "":
                break
            fm = re.match(r"^\s*(\w+)\s*(.+) \((\S*)\)", f)
            if fm:
                func = re.sub(r"\+0x[\da-f]+$", "", fm.group(2))
                if func.startswith("("):
                    continue
                stack.append(func)
        if stack:
            stack.reverse()
            samples.append(stack)
    return ok, samples

def shares(stacks):
    """self shares of the burn_* leaves among the stacks (root first)"""
    n = sum(c for _, c in stacks)
    leaf = {}
    for s, c in stacks:
        leaf[s[-1]] = leaf.get(s[-1], 0) + c
    return {f: 100.0 * leaf.get(f, 0) / n for f in ("burn_60", "burn_30",
                                                     "burn_10")}, n

def check(who, text, samples=None):
    bounds = {"burn_60": (54, 66), "burn_30": (24, 36), "burn_10": (5, 15)}
    folded, counts, ev, bad = stackcollapse(text)
    assert not bad, "%s: stackcollapse-perf does not know %r" % (who, bad[:3])
    frames = [l for l in text.split("\n") if l.startswith("\t")]
    odd = [l for l in frames
           if not re.match(r"^\s*(\w+)\s*(.+) \((\S*)\)", l)]
    assert not odd, "%s: frames speedscope does not know: %r" % (who, odd[:3])
    assert ev and ev.startswith(("cpu-clock", "cycles")), (who, ev)
    assert any(";main;work;burn_60" in k for k in folded), \
        "%s: no main;work;burn_60 chain" % who
    ss, et = speedscope(text)
    assert ss, "%s: speedscope takes no event" % who
    ok, ff = firefox(text)
    assert ok, "%s: not perf script to the Firefox Profiler" % who
    if samples is not None:
        assert sum(counts.values()) == samples, \
            "%s, stackcollapse: %d samples of %d" % (
                who, sum(counts.values()), samples)
    views = {
        "stackcollapse": [(k.split(";")[1:], c) for k, c in folded.items()],
        "speedscope": [(s, 1) for p in ss.values() for s in p if s],
        "firefox": [(s, 1) for s in ff],
    }
    for name, stacks in views.items():
        sh, n = shares(stacks)
        print("%s, %s: %d, %s" % (who, name, n, ", ".join(
            "%s %.1f%%" % (f, v) for f, v in sh.items())))
        if samples is not None and name != "stackcollapse":
            assert n == samples, "%s, %s: %d samples of %d" % (
                who, name, n, samples)
        for f, (lo, hi) in bounds.items():
            assert lo <= sh[f] <= hi, "%s, %s: %s %.1f%%" % (who, name, f,
                                                            sh[f])
    return folded

def callers(text):
    """the frame lines of work and main under a leaf, the return
    addresses every sample repeats, seen in 5 % of the stacks or more"""
    seen, n = {}, 0
    for block in text.split("\n\n"):
        frames = [l for l in block.split("\n") if l.startswith("\t")]
        n += 1 if frames else 0
        for l in frames[1:]:
            if re.match(r"^\t *[0-9a-f]+ (work|main)\+0x", l):
                seen[l] = seen.get(l, 0) + 1
    return {l for l, c in seen.items() if c >= n / 20}

a = check("aperture", open(sys.argv[1]).read(), int(sys.argv[2]))
if len(sys.argv) > 3:
    p = open(sys.argv[3]).read()
    check("perf", p)
    # the same lines as perf's: address in the file, sym+0xoff, path
    ca, cp = callers(open(sys.argv[1]).read()), callers(p)
    print("callers: %s" % " | ".join(sorted(l.strip() for l in ca)))
    assert ca and ca == cp, "frames unlike perf's: %r, perf %r" % (
        sorted(ca - cp), sorted(cp - ca))
with open(sys.argv[1] + ".folded", "w") as out:
    for k in sorted(a):
        out.write("%s %d\n" % (k, a[k]))
PY
python3 "$T/consumers.py" "$T/a.txt" "$samples" $perf_txt ||
	fail "a consumer of perf script misreads aperture script"

# FlameGraph's own, where installed (Debian has no package of it)
if command -v stackcollapse-perf.pl >/dev/null 2>&1; then
	stackcollapse-perf.pl "$T/a.txt" >"$T/sc.folded" 2>"$T/sc.err" ||
		fail "stackcollapse-perf.pl: $(cat "$T/sc.err")"
	grep -q 'Unrecognized line' "$T/sc.err" &&
		fail "stackcollapse-perf.pl: $(head -3 "$T/sc.err")"
	cmp -s "$T/sc.folded" "$T/a.txt.folded" ||
		fail "stackcollapse-perf.pl folds otherwise: $(diff "$T/a.txt.folded" "$T/sc.folded" | head -5)"
	echo "stackcollapse-perf.pl: $(wc -l <"$T/sc.folded") stacks, as folded here"
fi
exit 0
