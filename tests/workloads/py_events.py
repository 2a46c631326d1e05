# SPDX-License-Identifier: GPL-2.0
# Python functions that take a lock, allocate or launch, for the event
# kinds other than cpu and sched; argv[1] says which, argv[2] how many
# rounds.  At the end the program's own counts go to stdout ("count
# wait_lock 40": the acquisitions that found the lock held), the lines
# of the calls ("line wait_lock 31") and the locks' futex words ("addr
# wait_lock 0x55d0c0a0").
#   futex    wait_lock acquires a threading.Lock a holder thread holds
#            (a semaphore: futex waits; 3.8 to 3.12)
#   pthread  wait_mutex locks, through ctypes, a pthread mutex a holder
#            thread holds (glibc's __lll_lock_wait)
# the holder lets go once /proc says the waiter sleeps on the lock
#   mem      alloc_big and alloc_small fill fresh bytearrays of 120 and
#            40 MiB (over malloc's 32 MiB mmap threshold: each page a
#            fault), their minor faults counted by getrusage
#   gpu      launch_drv (argv[4] "drv") or launch_rt ("rt") launches
#            kernels through the CUDA driver or runtime found in argv[3]
#            (the stand-in's); the runtime names a kernel by the symbol
#            of its host stub, here cudaDeviceSynchronize
import ctypes
import os
import resource
import sys
import threading
import time

counts = {}


def count(name, n=1):
    counts[name] = counts.get(name, 0) + n


def holder(take, give, held, done, rounds, word, tid):
    for _ in range(rounds):
        take()
        held.set()
        # held until the waiter sleeps on the lock's futex word (its
        # syscall: futex, 202 on x86-64): each round is one contention
        while not waits_on(tid, word):
            time.sleep(0.001)
        give()
        done.wait()
        done.clear()


def waits_on(tid, word):
    try:
        with open("/proc/self/task/%d/syscall" % tid) as f:
            nr, addr = f.read().split()[:2]
    except (OSError, ValueError):
        return False
    return nr == "202" and int(addr, 16) == word


def wait_lock(lock):
    busy = not lock.acquire(blocking=False)
    if busy:
        lock.acquire()  # wait_lock-line
        count("wait_lock")
    lock.release()


def wait_mutex(libc, m):
    busy = libc.pthread_mutex_trylock(m) != 0
    if busy:
        libc.pthread_mutex_lock(m)  # wait_mutex-line
        count("wait_mutex")
    libc.pthread_mutex_unlock(m)


def contend(take, give, wait, word, rounds):
    held, done = threading.Event(), threading.Event()
    t = threading.Thread(target=holder,
                         args=(take, give, held, done, rounds, word,
                               threading.get_native_id()))
    t.start()
    for _ in range(rounds):
        held.wait()
        held.clear()
        wait()
        done.set()
    t.join()


def futex(rounds):
    lock = threading.Lock()
    # lockobject: the object's header, then its PyThread_type_lock (a
    # sem_t whose first word is the futex), 3.8 to 3.12
    sem = ctypes.c_void_p.from_address(id(lock) + 16).value
    print("addr wait_lock %#x" % sem)
    contend(lock.acquire, lock.release, lambda: wait_lock(lock), sem,
            rounds)


def pthread(rounds):
    libc = ctypes.CDLL(None, use_errno=True)
    m = ctypes.create_string_buffer(64)    # PTHREAD_MUTEX_INITIALIZER
    print("addr wait_mutex %#x" % ctypes.addressof(m))
    contend(lambda: libc.pthread_mutex_lock(m),
            lambda: libc.pthread_mutex_unlock(m),
            lambda: wait_mutex(libc, m), ctypes.addressof(m), rounds)


def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def alloc_big():
    f = faults()
    b = bytearray(120 << 20)  # alloc_big-line
    count("alloc_big", faults() - f)
    return len(b)


def alloc_small():
    f = faults()
    b = bytearray(40 << 20)  # alloc_small-line
    count("alloc_small", faults() - f)
    return len(b)


def mem(rounds):
    for _ in range(rounds):
        alloc_big()
        alloc_small()


def launch_drv(cu, f):
    r = cu.cuLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, 0, 0, 0)  # launch_drv-line
    assert r == 0, r
    count("launch_drv")


class dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint),
                ("z", ctypes.c_uint)]


def launch_rt(rt, stub):
    g, b = dim3(8, 1, 1), dim3(32, 1, 1)
    r = rt.cudaLaunchKernel(stub, g, b, None, 0, None)  # launch_rt-line
    assert r == 0, r
    count("launch_rt")


def probed(fn):
    return ctypes.string_at(ctypes.cast(fn, ctypes.c_void_p).value,
                            1) == b"\xcc"


def gpu(rounds):
    d = sys.argv[3]
    cu = ctypes.CDLL(os.path.join(d, "libcuda.so.1"))
    rt = ctypes.CDLL(os.path.join(d, "libcudart.so.12"))
    cu.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + \
        [ctypes.c_void_p] * 3
    rt.cudaLaunchKernel.argtypes = [ctypes.c_void_p, dim3, dim3,
                                    ctypes.c_void_p, ctypes.c_size_t,
                                    ctypes.c_void_p]
    # the library record did not probe from the start is probed once
    # it maps (the first byte of each entry point turns into int3):
    # record, busy with that, would read the names late (10 s at most)
    end = time.monotonic() + 10
    while time.monotonic() < end and not (probed(cu.cuLaunchKernel) and
                                          probed(rt.cudaLaunchKernel)):
        time.sleep(0.01)
    f = ctypes.c_void_p()
    assert cu.cuModuleGetFunction(ctypes.byref(f), None, b"py_kernel") == 0
    # the runtime names a kernel by its host stub's symbol
    stub = ctypes.cast(rt.cudaDeviceSynchronize, ctypes.c_void_p)
    for i in range(rounds):
        if sys.argv[4] == "drv":
            launch_drv(cu, f)
        else:
            launch_rt(rt, stub)


# record builds the unwind tables of a program it has just exec'd (and
# of libpython) in its first tenths of a second, longer in the sanitized
# build: the events come after that, as in a program that runs a while
# (the first of 20 pthread waits once had its native frames cut short)
time.sleep(0.5)
{"futex": futex, "pthread": pthread, "mem": mem,
 "gpu": gpu}[sys.argv[1]](int(sys.argv[2]))
# record reads a code object's names from the live process when its
# walker first meets it; a recorder busy with the libraries just loaded
# (ctypes, CUDA) could be late for a process that exits at once
time.sleep(0.3)
for name, n in sorted(counts.items()):
    print("count %s %d" % (name, n))
for i, line in enumerate(open(__file__).read().splitlines(), 1):
    if line.endswith("-line") and "# " in line:
        print("line %s %d" % (line.rsplit("# ", 1)[1][:-5], i))
sys.stdout.flush()
