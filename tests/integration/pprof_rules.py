# SPDX-License-Identifier: GPL-2.0
"""The rules a pprof profile must meet for Parca's server to take it,
as its validator (ValidatePprofProfile, pkg/normalizer/validate.go)
checks them, and Pyroscope's (ValidateProfile, pkg/validation/validate.go:
no sample type with '-'; numeric labels dropped), over the profile's
wire format read by hand (no protobuf package needed), and what proto3
asks of strings (UTF-8).  Usage: python3 pprof_rules.py FILE.pb.gz
Prints one line per broken rule and exits 1; exits 0 when all hold."""
import gzip
import re
import sys

# an unquoted PromQL metric name: Parca's profile type
# "name:type:unit:period_type:period_unit" must parse as one
# (parser.ParseMetricSelector, pkg/profilestore/profilecolumnstore.go)
PROMQL_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field number, value) of a message: ints, or bytes when
    length-delimited"""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wt == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, v


def ints(v):
    """a repeated integer field: packed bytes or one value"""
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def msg(b, spec):
    """spec: field number -> name; repeated ints and messages as lists"""
    m = {}
    for num, v in fields(b):
        if num in spec:
            m.setdefault(spec[num], []).append(v)
    return m


def one(m, k):
    return m.get(k, [0])[-1]


def check(path):
    errs = check_bytes(gzip.open(path).read())
    for e in sorted(set(errs))[:20]:
        print("pprof rule:", e)
    return not errs


def check_bytes(data):
    """the rules broken by the profile in data (not gzipped)"""
    p = msg(data, {1: "sample_type", 2: "sample", 3: "mapping",
                   4: "location", 5: "function", 6: "string"})
    strs = p.get("string", [])
    errs = []
    for i, s in enumerate(strs):
        try:
            s.decode("utf-8")
        except UnicodeDecodeError:
            errs.append("string %d is not UTF-8: %r" % (i, s[:40]))
    if strs and strs[0] != b"":
        errs.append("first string is not empty")
    ns = len(strs)
    maps = [msg(b, {1: "id", 5: "filename", 6: "build_id"})
            for b in p.get("mapping", [])]
    for i, m in enumerate(maps):
        if one(m, "id") != i + 1:
            errs.append("mapping id is not sequential: [%d] has id %d" %
                        (i, one(m, "id")))
        for k in ("filename", "build_id"):
            if one(m, k) > ns:
                errs.append("mapping %s index out of bounds" % k)
    funcs = [msg(b, {1: "id", 2: "name", 3: "system_name", 4: "filename"})
             for b in p.get("function", [])]
    for i, f in enumerate(funcs):
        if one(f, "id") != i + 1:
            errs.append("function id is not sequential")
        for k in ("name", "system_name", "filename"):
            if one(f, k) > ns:
                errs.append("function %s index out of bounds" % k)
    locs = [msg(b, {1: "id", 2: "mapping_id", 4: "line"})
            for b in p.get("location", [])]
    for i, l in enumerate(locs):
        if one(l, "id") != i + 1:
            errs.append("location id is not sequential")
        if one(l, "mapping_id") > len(maps):
            errs.append("location mapping_id index out of bounds")
        for ln in l.get("line", []):
            fid = one(msg(ln, {1: "function_id"}), "function_id")
            if fid > len(funcs):
                errs.append("location %d has invalid function_id %d" %
                            (i + 1, fid))
    ntypes = len(p.get("sample_type", []))
    for b in p.get("sample_type", []):
        t = msg(b, {1: "type", 2: "unit"})
        name = strs[one(t, "type")].decode("utf-8", "replace") \
            if one(t, "type") < ns else ""
        if "-" in name:
            errs.append("sample type contains -: %s (Pyroscope)" % name)
        unit = strs[one(t, "unit")].decode("utf-8", "replace") \
            if one(t, "unit") < ns else ""
        if not PROMQL_NAME.match("x:%s:%s" % (name, unit)):
            errs.append("sample type %s/%s is no PromQL name (Parca)" %
                        (name, unit))
    if not ntypes and p.get("sample"):
        errs.append("missing sample type information")
    for i, b in enumerate(p.get("sample", [])):
        s = msg(b, {1: "location_id", 2: "value", 3: "label"})
        vals = [x for v in s.get("value", []) for x in ints(v)]
        if len(vals) != ntypes:
            errs.append("sample %d has %d values, expected %d" %
                        (i, len(vals), ntypes))
        for lid in (x for v in s.get("location_id", []) for x in ints(v)):
            if lid == 0 or lid > len(locs):
                errs.append("sample %d has location_id %d" % (i, lid))
        for lb in s.get("label", []):
            lm = msg(lb, {1: "key", 2: "str", 3: "num"})
            if one(lm, "num") and not one(lm, "str"):
                errs.append("sample %d has a numeric label, which both "
                            "servers drop" % i)
            if one(lm, "key") == 0 or one(lm, "key") > ns:
                errs.append("sample %d has label key %d" %
                            (i, one(lm, "key")))
            if one(lm, "str") > ns:
                errs.append("sample %d has label str out of bounds" % i)
    return errs


if __name__ == "__main__":
    sys.exit(0 if check(sys.argv[1]) else 1)
