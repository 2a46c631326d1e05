# SPDX-License-Identifier: GPL-2.0
# Python threads: spin_a runs in one thread, spin_b in another, each
# timed with its own thread's CPU clock; the main thread sleeps in nap
# meanwhile, and says "ready PID" once the threads run (for -p); with a
# second argument, a file, all stop once that file exists.  At the end,
# each spinner's share of their CPU time, the time nap slept, and the
# lines of the spinners' loops and of nap's sleep go to stdout.
import os
import sys
import threading
import time

spent = {}
done = threading.Event()

def spin(name, secs):
    clock = time.thread_time_ns
    t0 = clock()
    end = time.monotonic() + secs
    x = 0
    while time.monotonic() < end and not done.is_set():
        for i in range(2000):
            x += i  # spin-line
    spent[name] = clock() - t0

def spin_a(secs):
    spin("spin_a", secs)  # spin_a-line

def spin_b(secs):
    spin("spin_b", secs)  # spin_b-line

def nap(secs):
    t0 = time.monotonic()
    time.sleep(secs)  # nap-line
    return time.monotonic() - t0

def main(secs, stop):
    ts = [threading.Thread(target=spin_a, args=(secs,)),
          threading.Thread(target=spin_b, args=(secs,))]
    for t in ts:
        t.start()
    print("ready %d" % os.getpid(), flush=True)
    if stop:
        end = time.monotonic() + secs
        while not os.path.exists(stop) and time.monotonic() < end:
            nap(0.05)
        slept = 0
    else:
        slept = nap(secs)
    done.set()
    for t in ts:
        t.join()
    total = sum(spent.values())
    for name, ns in sorted(spent.items()):
        print("share %s %.1f" % (name, 100.0 * ns / total))
    print("slept %d" % (slept * 1e9))
    src = open(__file__).read().splitlines()
    for i, line in enumerate(src, 1):
        if line.endswith("-line") and "# " in line:
            print("line %s %d" % (line.rsplit("# ", 1)[1][:-5], i))

main(float(sys.argv[1]) if len(sys.argv) > 1 else 2.0,
     sys.argv[2] if len(sys.argv) > 2 else None)
