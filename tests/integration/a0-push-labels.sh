#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Labels from the recording: record --label's in the header, each
# process's cgroup (read once from /proc/PID/cgroup) and the container id
# in it, as parca-agent parses one.  A workload in a cgroup v2 shaped as
# systemd's docker-ID.scope: report's pprof has cgroup, container_id and
# the labels on every sample; push sends the labels as series labels
# (--label replacing one), and the samples' cgroup and container_id.
. tests/integration/lib.sh
. tests/integration/push.inc
need_bpf
mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$mnt" ] || skip "no cgroup v2 hierarchy mounted"

id=$(printf '%064x' $$ | tr 0 a | head -c 64)
rel=/aperture-a0-$$/docker-$id.scope
mkdir -p "$mnt$rel" || fail "mkdir $mnt$rel"
trap 'for p in $RECEIVERS $wl; do kill "$p" 2>/dev/null; done; wait 2>/dev/null
	rmdir "$mnt$rel" "$mnt/aperture-a0-$$" 2>/dev/null; rm -rf "$T"' \
	EXIT INT TERM
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 30' sh "$mnt$rel" \
	"$WL/cpu_split" &
wl=$!
i=0
until grep -q "docker-$id.scope" "/proc/$wl/cgroup" 2>/dev/null &&
	[ "$(cat "/proc/$wl/comm" 2>/dev/null)" = cpu_split ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "the workload is not in $rel"
	sleep 0.1
done
"$APERTURE" record -q -p $wl -d 1 --label env=ci --label service=web \
	-o "$T/l.data" 2>"$T/rec.err" || fail "record: $(cat "$T/rec.err")"
"$APERTURE" record --label bad-name=x -d 1 -o "$T/x.data" 2>/dev/null
[ $? = 64 ] || fail "record --label bad-name=x taken"

# report's pprof: the labels on every sample
"$APERTURE" report -i "$T/l.data" --format pprof >"$T/l.pb.gz" ||
	fail "report pprof"
python3 - "$T/l.pb.gz" "$id" "$rel" <<'PY' || fail "pprof labels"
import sys
sys.path.insert(0, "tests/integration")
import push_receiver as r
p = r.decode(open(sys.argv[1], "rb").read())
assert p["samples"], "no samples"
for _, lab, nums, _ in p["samples"]:
    assert lab.get("env") == "ci" and lab.get("service") == "web", lab
    assert lab.get("container_id") == sys.argv[2], lab
    assert lab.get("cgroup") == sys.argv[3], lab
    assert nums == 0, "numeric labels"
PY

# push: series labels from the file, --label over one; the samples'
receiver parca "$T/pa"
"$APERTURE" push --to "parca+http://127.0.0.1:$PORT" --label env=prod \
	"$T/l.data" 2>"$T/err" || fail "push: $(cat "$T/err")"
[ "$(got "$T/pa" 'sorted(g[0]["labels"].items())')" = \
	"[('env', 'prod'), ('host', '$(uname -n)'), ('service', 'web')]" ] ||
	fail "series labels: $(got "$T/pa" 'g[0]["labels"]')"
[ "$(got "$T/pa" 'g[0]["profiles"][0]["sample_values"]["container_id"]')" = \
	"['$id']" ] || fail "container_id: $(got "$T/pa" 'g[0]["profiles"][0]["sample_values"]')"
[ "$(got "$T/pa" 'g[0]["profiles"][0]["sample_values"]["cgroup"]')" = \
	"['$rel']" ] || fail "cgroup: $(got "$T/pa" 'g[0]["profiles"][0]["sample_values"]')"
# the file's labels are series labels, not the samples' too (Parca
# would rename them exported_env)
[ "$(got "$T/pa" '"env" in g[0]["profiles"][0]["sample_values"]')" = False ] ||
	fail "the header's labels on the pushed samples"
receiver pyroscope "$T/py"
"$APERTURE" push --to "pyroscope+http://127.0.0.1:$PORT" "$T/l.data" \
	2>"$T/err" || fail "push pyroscope: $(cat "$T/err")"
[ "$(got "$T/py" '(g[0]["series"]["service_name"], g[0]["series"]["env"])')" = \
	"('web', 'ci')" ] || fail "pyroscope series: $(got "$T/py" 'g[0]["series"]')"
exit 0
