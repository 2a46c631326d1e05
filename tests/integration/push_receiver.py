# SPDX-License-Identifier: GPL-2.0
"""A Pyroscope or Parca receiver on 127.0.0.1 for aperture push's tests,
stdlib only.  It takes what the real server takes and refuses, with the
server's status, what it refuses, as their source says (no server can
be installed here, so none was run):

  Pyroscope (grafana/pyroscope 3fe6a457, Aug 2026):
    pkg/ingester/pyroscope/ingest_handler.go: /ingest's query (name,
      from, until, spyName); format=pprof takes the whole body for the
      profile, a multipart/form-data body without it is a form;
    pkg/og/convert/pprof/profile.go: the form's profile,
      prev_profile (refused) and sample_type_config parts; metricName;
      createLabels;
    api/model/labelset: the name's syntax, service name and label name
      runes;
    pkg/validation/validate.go: ValidateProfile (no '-' in a sample type,
      UTF-8, ids), ValidateLabels (30 names, legacy names with '.' made
      '_', no name twice);
    pkg/pprof/pprof.go Normalize: numeric labels dropped.
  Parca (parca-dev/parca 3b5647cd, Jul 2026):
    proto/parca/profilestore/v1alpha1/profilestore.proto: POST
      /profiles/writeraw, WriteRawRequest as JSON;
    pkg/normalizer/normalizer.go NormalizeWriteRawRequest: __name__
      required, label names valid (UTF-8, prometheus/common 0.67's
      default), no name twice, gzip, ValidatePprofProfile
      (pkg/normalizer/validate.go, tests/integration/pprof_rules.py);
      LabelsFromSample: string labels only, names sanitized;
    pkg/profilestore/profilecolumnstore.go writeSeries: the profile type
      name:type:unit:period_type:period_unit(:delta) parses as a PromQL
      selector, else an error gRPC turns into 500.

Usage: push_receiver.py pyroscope|parca DIR [MODE...]
Writes its port to DIR/port, one JSON line per request it took to
DIR/got.jsonl and one per refusal to DIR/refused.jsonl.  Modes: tls
(DIR/cert.pem, DIR/key.pem), token=T (Bearer T or 401), status=N
(answer N to every request), slow=S (sleep S seconds before answering),
die-first (exit on the first request without answering it), port=N
(listen on N rather than a free port)."""
import base64
import email.parser
import email.policy
import gzip
import json
import os
import re
import ssl
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pprof_rules  # noqa: E402

PROMQL_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")


class Refused(Exception):
    def __init__(self, status, why):
        Exception.__init__(self, why)
        self.status = status


def decode(data):
    """the profile's sample types, string table, and samples as
    (values, {label: str}, numeric label count, leaf function name)"""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    errs = pprof_rules.check_bytes(data)
    if errs:
        raise Refused(400, "invalid profile: " + errs[0])
    m = pprof_rules.msg
    one = pprof_rules.one
    ints = pprof_rules.ints
    p = m(data, {1: "sample_type", 2: "sample", 4: "location",
                 5: "function", 6: "string", 11: "period_type",
                 10: "duration"})
    strs = [s.decode("utf-8") for s in p.get("string", [])]
    types = []
    for b in p.get("sample_type", []):
        t = m(b, {1: "type", 2: "unit"})
        types.append((strs[one(t, "type")], strs[one(t, "unit")]))
    period = ("", "")
    if p.get("period_type"):
        t = m(p["period_type"][-1], {1: "type", 2: "unit"})
        period = (strs[one(t, "type")], strs[one(t, "unit")])
    funcs = {}
    for b in p.get("function", []):
        f = m(b, {1: "id", 2: "name"})
        funcs[one(f, "id")] = strs[one(f, "name")]
    locs = {}
    for b in p.get("location", []):
        lo = m(b, {1: "id", 4: "line"})
        lines = lo.get("line", [])
        fid = one(m(lines[0], {1: "function_id"}), "function_id") \
            if lines else 0
        locs[one(lo, "id")] = funcs.get(fid, "")
    samples = []
    for b in p.get("sample", []):
        s = m(b, {1: "location_id", 2: "value", 3: "label"})
        vals = [x for v in s.get("value", []) for x in ints(v)]
        lids = [x for v in s.get("location_id", []) for x in ints(v)]
        labels, nums = {}, 0
        for lb in s.get("label", []):
            lm = m(lb, {1: "key", 2: "str", 3: "num"})
            if one(lm, "str"):
                labels[strs[one(lm, "key")]] = strs[one(lm, "str")]
            elif one(lm, "num"):
                nums += 1
        samples.append((vals, labels, nums, locs.get(lids[0], "")
                        if lids else ""))
    return {"types": types, "period": period, "samples": samples,
            "duration": one(p, "duration"), "size": len(data)}


def parse(data):
    """decode, a profile that does not parse refused as the servers do"""
    try:
        return decode(data)
    except Refused:
        raise
    except Exception as e:
        raise Refused(400, "failed to parse profile: %s" % e)


def totals(prof):
    """per sample type: its total, and its total per leaf function"""
    out = {}
    for i, (t, u) in enumerate(prof["types"]):
        tot, leaves = 0, {}
        for vals, _, _, leaf in prof["samples"]:
            tot += vals[i]
            if vals[i]:
                leaves[leaf] = leaves.get(leaf, 0) + vals[i]
        out[t] = {"unit": u, "total": tot, "leaves": leaves}
    return out


def sample_label_names(prof):
    names = set()
    for _, labels, _, _ in prof["samples"]:
        names.update(labels)
    return names


def sample_label_values(prof):
    """each sample label's values, sorted"""
    vals = {}
    for _, labels, _, _ in prof["samples"]:
        for k, v in labels.items():
            vals.setdefault(k, set()).add(v)
    return {k: sorted(v) for k, v in vals.items()}


# Pyroscope ---------------------------------------------------------------

LABEL_RUNE = re.compile(r"^[a-zA-Z0-9_.]+$")
SERVICE_RUNE = re.compile(r"^[a-zA-Z0-9_./-]+$")


def labelset_parse(name):
    """api/model/labelset Parse: APP{k=v,...}"""
    app, _, rest = name.partition("{")
    app = app.strip()
    if not SERVICE_RUNE.match(app):
        raise Refused(400, "name: invalid service name: %r" % app)
    labels = {"__name__": app}
    if rest:
        body = rest.split("}", 1)[0]
        for kv in body.split(","):
            if not kv:
                continue
            k, _, v = kv.partition("=")
            k = k.strip()
            if k != "__name__" and (not LABEL_RUNE.match(k)):
                raise Refused(400, "name: invalid label name: %r" % k)
            labels[k] = v.strip()
    return labels


def metric_name(types, config):
    """pkg/og/convert/pprof/profile.go metricName"""
    for t, _ in types:
        if t == "wall":
            return t
    st = ""
    for t, _ in types:
        st = t
        c = config.get(t)
        if c and c.get("display-name"):
            st = c["display-name"]
        if "cpu" in st:
            return "process_cpu"
        if "alloc_" in st or "inuse_" in st or st in ("space", "objects"):
            return "memory"
        if "mutex_" in st:
            return "mutex"
        if "block_" in st:
            return "block"
        if "goroutines" in st:
            return "goroutines"
    return st


DEFAULT_CONFIG = {"samples": {"display-name": "cpu"},
                  "contentions": {"display-name": "mutex_count"},
                  "delay": {"display-name": "mutex_duration"}}


def legacy_name(n):
    """SanitizeLegacyLabelName: (sanitized, ok)"""
    if not n:
        return n, False
    for i, c in enumerate(n):
        if not (c.isascii() and (c.isalpha() or c == "_" or
                                 (c.isdigit() and i))):
            if c != ".":
                return n, False
    return n.replace(".", "_"), True


def pyroscope(handler, q, body):
    ctype = handler.headers.get("Content-Type", "")
    fmt = q.get("format", [""])[0]
    name = q.get("name", [""])[0]
    labels = labelset_parse(name)
    for k in ("from", "until"):
        v = q.get(k, [""])[0]
        if v and not v.isdigit():
            raise Refused(400, "%s: not UNIX seconds: %r" % (k, v))
    config = None
    if fmt == "pprof":
        profile = body
    elif fmt:
        raise Refused(400, "format %r is not pprof" % fmt)
    elif "multipart/form-data" in ctype:
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
        parts = {}
        for part in msg.iter_parts():
            parts[part.get_param("name", header="content-disposition")] = \
                part.get_payload(decode=True)
        if "prev_profile" in parts:
            raise Refused(400, "unsupported client version")
        if "profile" not in parts:
            raise Refused(400, "no profile part")
        profile = parts["profile"]
        if "sample_type_config" in parts:
            try:
                config = json.loads(parts["sample_type_config"])
            except ValueError as e:
                raise Refused(400, "sample_type_config: %s" % e)
            allowed = {"units", "display-name", "aggregation",
                       "cumulative", "sampled"}
            for k, c in config.items():
                if not isinstance(c, dict) or set(c) - allowed:
                    raise Refused(400, "sample_type_config %s: %r" % (k, c))
    else:
        raise Refused(400, "not a pprof body")
    prof = parse(profile)
    if not prof["types"]:
        raise Refused(400, "empty profile")
    # ValidateProfile's default limits (pkg/validation/limits.go)
    if len(prof["samples"]) > 16000:
        raise Refused(400, "%d samples, 16000 allowed" % len(prof["samples"]))
    if prof["size"] > 4 * 1024 * 1024:
        raise Refused(400, "%d bytes uncompressed, 4 MiB allowed" %
                      prof["size"])
    for t, _ in prof["types"]:
        if "-" in t:
            raise Refused(400, "sample type contains -")
    cfg = config if config is not None else DEFAULT_CONFIG
    series = {"__name__": metric_name(prof["types"], cfg),
              "__delta__": "false",
              "pyroscope_spy": q.get("spyName", ["unknown"])[0]}
    if "service_name" not in labels:
        series["service_name"] = labels["__name__"]
    for k, v in labels.items():
        if k != "__name__":
            series[k] = v
    # the distributor splits samples by their (string) labels into series
    names = set(series) | sample_label_names(prof)
    if len(names) > 30:
        raise Refused(400, "%d label names, 30 allowed" % len(names))
    seen = set()
    for n in sorted(names):
        if n.startswith("__"):
            continue
        s, ok = legacy_name(n)
        if not ok:
            raise Refused(400, "invalid label name %r" % n)
        if s in seen:
            raise Refused(400, "duplicate label name %r" % s)
        seen.add(s)
    return {"server": "pyroscope", "series": series,
            "profile_types": ["%s:%s:%s:%s:%s" % (series["__name__"], t, u,
                                                   prof["period"][0],
                                                   prof["period"][1])
                              for t, u in prof["types"]],
            "config": config, "from": q.get("from", [""])[0],
            "until": q.get("until", [""])[0],
            "totals": totals(prof),
            "sample_labels": sorted(sample_label_names(prof)),
            "sample_values": sample_label_values(prof),
            "numeric_labels": sum(s[2] for s in prof["samples"])}


# Parca ------------------------------------------------------------------

def sanitize_label_name(n):
    """prometheus util/strutil SanitizeLabelName"""
    return re.sub(r"[^a-zA-Z0-9_]", "_", n)


def parca(handler, q, body):
    try:
        req = json.loads(body)
    except ValueError as e:
        raise Refused(400, "json: %s" % e)
    out = []
    for s in req.get("series", []):
        ls, name = {}, ""
        for lab in s.get("labels", {}).get("labels", []):
            n, v = lab.get("name", ""), lab.get("value", "")
            if n == "__name__":
                name = v
                continue
            if not n:
                raise Refused(400, "invalid label name: %s" % n)
            if n in ls:
                raise Refused(400, "duplicate label name: %s" % n)
            ls[n] = v
        if not name:
            raise Refused(400, "missing __name__ label")
        for smp in s.get("samples", []):
            raw = smp.get("rawProfile", smp.get("raw_profile", ""))
            try:
                data = base64.b64decode(raw, validate=True)
            except ValueError as e:
                raise Refused(400, "raw_profile: not base64: %s" % e)
            prof = parse(data)
            types = []
            for t, u in prof["types"]:
                pt = "%s:%s:%s:%s:%s" % (name, t, u, prof["period"][0],
                                         prof["period"][1])
                if prof["duration"]:
                    pt += ":delta"
                if not PROMQL_NAME.match(pt):
                    raise Refused(500, "invalid profile type (%s)" % pt)
                types.append(pt)
            slabels = set()
            for n in sample_label_names(prof):
                n = sanitize_label_name(n)
                slabels.add("exported_" + n if n in ls else n)
            out.append({"profile_types": types, "totals": totals(prof),
                        "sample_labels": sorted(slabels),
                        "sample_values": sample_label_values(prof),
                        "numeric_labels": sum(x[2]
                                              for x in prof["samples"])})
    if not out:
        raise Refused(400, "no series")
    return {"server": "parca", "name": name, "labels": ls, "profiles": out}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def answer(self, status, obj):
        b = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def log(self, f, obj):
        with open(os.path.join(self.server.dir, f), "a") as out:
            out.write(json.dumps(obj) + "\n")

    def do_POST(self):
        srv = self.server
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        if "die-first" in srv.modes:
            os._exit(0)
        if srv.slow:
            time.sleep(srv.slow)
        url = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(url.query)
        try:
            if srv.token and self.headers.get("Authorization") != \
                    "Bearer " + srv.token:
                raise Refused(401, "unauthenticated")
            if srv.status:
                raise Refused(srv.status, "status mode")
            if srv.kind == "pyroscope":
                if url.path not in ("/ingest", "/pyroscope/ingest"):
                    raise Refused(404, "no such path %s" % url.path)
                got = pyroscope(self, q, body)
            else:
                if url.path != "/profiles/writeraw":
                    raise Refused(404, "no such path %s" % url.path)
                if "json" not in self.headers.get("Content-Type", ""):
                    raise Refused(415, "not JSON")
                got = parca(self, q, body)
        except Refused as e:
            self.log("refused.jsonl", {"status": e.status, "why": str(e)})
            self.answer(e.status, {"code": e.status, "message": str(e)})
            return
        self.log("got.jsonl", got)
        self.answer(200, {})


def main():
    kind, d, modes = sys.argv[1], sys.argv[2], sys.argv[3:]
    opt = dict(m.split("=", 1) for m in modes if "=" in m)
    srv = ThreadingHTTPServer(("127.0.0.1", int(opt.get("port", 0))),
                              Handler)
    srv.kind, srv.dir, srv.modes = kind, d, modes
    srv.token = opt.get("token")
    srv.status = int(opt["status"]) if "status" in opt else None
    srv.slow = float(opt["slow"]) if "slow" in opt else None
    if "tls" in modes:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.path.join(d, "cert.pem"),
                            os.path.join(d, "key.pem"))
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = os.path.join(d, "port.tmp")
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, os.path.join(d, "port"))
    srv.serve_forever()


if __name__ == "__main__":
    main()
