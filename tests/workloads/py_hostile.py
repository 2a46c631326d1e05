# SPDX-License-Identifier: GPL-2.0
# Python functions whose names and file names no output should print
# raw: code objects renamed with CodeType.replace and run for argv[1]
# seconds in turn.  Their names go to stdout as JSON ("names": the
# function names, "file": the file name), lone surrogates (the bytes of
# a name not UTF-8, as surrogateescape decodes them) left as they are.
import json
import sys
import time
import types

FILE = "/tmp/ev\udcfe\x1b]0;title\x07\n\u202e.py"
NAMES = [
    # a byte not UTF-8, terminal escapes, a line break, a folded
    # separator, XML's and JSON's specials, a tab, DEL and a control
    "bad\udcffname\x1b[31m;\n<&\"'>\t\x7f\x01",
    # Latin-1 (one byte a character in CPython), a right-to-left override
    "lat\xff\xe9in\x1b\u202eR",
    # beyond the BMP (four bytes a character), a zero width joiner
    "astral\U0001d11e\u200dX",
    # longer than any name is kept
    "long" + "x" * 3000,
]


def spin(n):
    x = 0
    for i in range(n):
        x += i
    return x


def renamed(name):
    kw = {"co_name": name, "co_filename": FILE}
    if sys.version_info >= (3, 11):
        kw["co_qualname"] = name
    return types.FunctionType(spin.__code__.replace(**kw), {})


def main(secs):
    fns = [renamed(n) for n in NAMES]
    end = time.monotonic() + secs
    while time.monotonic() < end:
        for f in fns:
            f(20000)
    print(json.dumps({"names": NAMES, "file": FILE}))


main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
