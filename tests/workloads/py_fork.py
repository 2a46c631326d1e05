# SPDX-License-Identifier: GPL-2.0
# A forked child runs Python (multiprocessing's fork start method does):
# the child spins in child_work for a second, the parent waits in
# parent_wait; "child PID" goes to stdout.
import os
import time

def child_work():
    end = time.monotonic() + 1
    x = 0
    while time.monotonic() < end:
        x += 1

def parent_wait(pid):
    os.waitpid(pid, 0)

pid = os.fork()
if pid == 0:
    child_work()
    os._exit(0)
print("child %d" % pid, flush=True)
parent_wait(pid)
