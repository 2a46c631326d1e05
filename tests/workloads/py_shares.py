# SPDX-License-Identifier: GPL-2.0
# Python functions of known shares: burn_a does 6 units of work a round,
# burn_b 3, burn_c 1, each timed with the thread's CPU clock; at the end
# each one's share of the three and the lines of its call and of work's
# loop body go to stdout ("share burn_a 60.1", "line burn_a 21").  A
# function compiled from a file name no one should print raw ("evil" with
# a newline, ';' and an escape) runs too.
import sys
import time

def work(n):
    x = 0
    for i in range(n):
        x += i * i  # work-line
    return x

def burn_a(n):
    return work(n)  # burn_a-line

def burn_b(n):
    return work(n)  # burn_b-line

def burn_c(n):
    return work(n)  # burn_c-line

EVIL = compile("def evil(n):\n    return sum(range(n))\n",
               "ev\nil;\x1b[31m.py", "exec")
ns = {}
exec(EVIL, ns)

def main(secs):
    spent = {"burn_a": 0, "burn_b": 0, "burn_c": 0}
    clock = time.thread_time_ns
    end = time.monotonic() + secs
    while time.monotonic() < end:
        for f, n in ((burn_a, 6000), (burn_b, 3000), (burn_c, 1000)):
            t0 = clock()
            f(n)
            spent[f.__name__] += clock() - t0
        ns["evil"](200)
    total = sum(spent.values())
    for name, ns_ in spent.items():
        print("share %s %.1f" % (name, 100.0 * ns_ / total))
    src = open(__file__).read().splitlines()
    for i, line in enumerate(src, 1):
        if line.endswith("-line") and "# " in line:
            print("line %s %d" % (line.rsplit("# ", 1)[1][:-5], i))

main(float(sys.argv[1]) if len(sys.argv) > 1 else 2.0)
