# SPDX-License-Identifier: GPL-2.0
"""Rewrites a record file (man/aperture-file.5) with hostile values in
valid blocks: sched intervals and thread totals, lock waits and holds,
syscall durations (a summary's total and longest too) of 2^64-1 ns, mem
periods of 2^63.  Blocks are inflated, their frames changed in place,
deflated again with both CRCs, and the trailer rebuilt.
usage: aprewrite.py IN OUT"""
import struct
import sys
import zlib

HUGE = 2**64 - 1


def crc(b):
    return zlib.crc32(b) & 0xffffffff


def hostile(tag, p):
    p = bytearray(p)
    # the sizes of 1.0 (68 and 128 bytes): later ones only add fields
    kind = struct.unpack_from("<I", p, 0)[0] if tag == 5 else 0
    if tag == 5 and len(p) >= 68:
        if kind == 1:			# interval: off_ns, wakeup_ns
            struct.pack_into("<QQ", p, 4 + 24, HUGE, HUGE)
        elif kind == 2 and len(p) >= 128:  # totals: on, blocked, runnable
            struct.pack_into("<QQQ", p, 4 + 24, HUGE, HUGE, HUGE)
            struct.pack_into("<Q", p, 4 + 24 + 8 * 6, HUGE)  # wake total
            struct.pack_into("<Q", p, 4 + 24 + 8 * 7, HUGE)  # wake max
    elif tag == 1 and len(p) >= 40:	# lock: hold_ns, wait_ns
        struct.pack_into("<QQ", p, 24, HUGE, HUGE)
    elif tag == 2 and len(p) >= 48:	# syscall: duration_ns
        struct.pack_into("<Q", p, 20, HUGE)
        flags = struct.unpack_from("<I", p, 44)[0]
        if flags & 4 and len(p) >= 72:	# a summary's max_ns
            struct.pack_into("<Q", p, 64, HUGE)
    elif tag == 4 and len(p) >= 64:	# mem sample: period
        struct.pack_into("<Q", p, 56, 2**63)
    return bytes(p)


def main(src, dst):
    d = open(src, "rb").read()
    hl = struct.unpack_from("<I", d, 12)[0]
    out = bytearray(d[:20 + hl])
    off = 20 + hl
    index, tags, nframes = [], [0] * 32, 0
    while d[off:off + 4] == b"APBK":
        clen, rlen, nf = struct.unpack_from("<III", d, off + 4)
        raw = zlib.decompress(d[off + 24:off + 24 + clen])
        frames, pos = [], 0
        while pos < len(raw):
            tag, ln = struct.unpack_from("<II", raw, pos)
            frames.append(struct.pack("<II", tag, ln) +
                          hostile(tag, raw[pos + 8:pos + 8 + ln]))
            if tag < 32:
                tags[tag] += 1
            pos += 8 + ln
        raw = b"".join(frames)
        comp = zlib.compress(raw, 1)
        hdr = b"APBK" + struct.pack("<IIII", len(comp), len(raw), nf,
                                    crc(comp))
        index.append((len(out), nf))
        nframes += nf
        out += hdr + struct.pack("<I", crc(hdr)) + comp
        off += 24 + clen
    t = len(out)
    pay = struct.pack("<QQ", len(index), nframes) + struct.pack("<32Q", *tags)
    pay += b"".join(struct.pack("<QI", o, n) for o, n in index)
    tr = b"APTR" + struct.pack("<I", len(pay)) + pay
    out += tr + struct.pack("<I", crc(tr)) + struct.pack("<Q", t) + \
        b"APEND\0\0\0"
    open(dst, "wb").write(out)


main(sys.argv[1], sys.argv[2])
