#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# a1-switch-*: the window files of one record --switch-output run, in
# name order: each read alone (its header's start and duration, its
# samples), every event's time inside its window, the windows back to
# back.  Prints the samples added up; exits 1 with a reason otherwise.
import json
import subprocess
import sys

aperture = sys.argv[1]
files = sorted(sys.argv[2:])
total = 0
prev_end = None
prev_nr = None
for f in files:
    rep = subprocess.run([aperture, "report", "-i", f, "--format", "json"],
                         capture_output=True, text=True)
    if rep.returncode:
        sys.exit(f"report -i {f}: {rep.stderr.strip()}")
    h = json.loads(rep.stdout)["header"]
    start = h["start_ns"]
    # duration_s has 6 decimals: the end to the microsecond
    end = start + round(h["duration_s"] * 1e9)
    if prev_end is not None and abs(start - prev_end) > 1000:
        sys.exit(f"{f}: starts at {start}, the window before ended at "
                 f"{prev_end}: not back to back")
    prev_end = end
    # "...; window N": one more than the window before
    nr = int(h["target"].split("; window ")[1].split(",")[0])
    if prev_nr is not None and nr != prev_nr + 1:
        sys.exit(f"{f}: window {nr} after window {prev_nr}")
    prev_nr = nr
    total += h["samples"]
    freq = h["freq"]
    scr = subprocess.run([aperture, "script", "-i", f, "--format", "jsonl"],
                         capture_output=True, text=True)
    if scr.returncode:
        sys.exit(f"script -i {f}: {scr.stderr.strip()}")
    cpu = 0
    for line in scr.stdout.splitlines():
        ev = json.loads(line)
        if not (start <= ev["ts"] < end + 1000):
            sys.exit(f"{f}: a {ev['event']} event at {ev['ts']}, outside "
                     f"its window [{start}, {end})")
        cpu += ev["event"] == "cpu"
    if cpu != h["samples"]:
        sys.exit(f"{f}: {cpu} cpu events in script, {h['samples']} samples "
                 "in its header")
print(total, freq)
