# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Decode a cgsched --timeline file with Perfetto's own schema and summarise it.

Usage: perfetto_check.py FILE
Prints one JSON object: every track (name, parent's name, path, counter or
not, how many slices), and per cgroup path its throttle slices (count, total
ns, the first one's start), its throttled periods (count, shortest and longest, the most in a row
they say) and its runs of them (count, periods in all, longest), its long
waits (count, the cgroups named as "behind"), the command
slice, the last value of the loss counter, per cgroup path the first and
last time of any event on its tracks (spans), and the problems found: a slice
end with no begin, a slice left open, a timestamp going back on a track, an
event on a track never described. Exit status 1 when the file does not
decode.
"""
import json
import sys

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

BEGIN, END, INSTANT, COUNTER = 1, 2, 3, 4


def main():
    trace = pb.Trace()
    try:
        with open(sys.argv[1], "rb") as f:
            trace.ParseFromString(f.read())
    except Exception as e:  # the whole point: does it decode
        print(json.dumps({"decoded": False, "error": str(e)}))
        return 1
    tracks = {}
    for p in trace.packet:
        if p.HasField("track_descriptor"):
            d = p.track_descriptor
            tracks[d.uuid] = {"name": d.name, "parent": d.parent_uuid or None,
                              "path": d.description, "counter": d.HasField("counter"),
                              "slices": 0, "last_ts": None}
    problems, open_at, cgroups, spans = [], {}, {}, {}
    command, lost = None, 0.0

    def cg_of(uuid):
        """The cgroup path of a track: its own, or its parent's."""
        t = tracks[uuid]
        if t["path"].startswith("/"):
            return t["path"]
        return tracks.get(t["parent"], {}).get("path", "?")

    for p in trace.packet:
        if not p.HasField("track_event"):
            continue
        e, ts = p.track_event, p.timestamp
        t = tracks.get(e.track_uuid)
        if t is None:
            problems.append("event on an undescribed track %d" % e.track_uuid)
            continue
        cg = cg_of(e.track_uuid) if t["name"] not in ("command", "cgsched: events lost") else None
        if cg:
            span = spans.setdefault(cg, [ts, ts])
            span[0], span[1] = min(span[0], ts), max(span[1], ts)
        if t["last_ts"] is not None and ts < t["last_ts"]:
            problems.append("time went back on %s: %d < %d" % (t["name"], ts, t["last_ts"]))
        t["last_ts"] = ts
        if e.type == BEGIN:
            if e.track_uuid in open_at:
                problems.append("slice begun twice on %s" % t["name"])
            open_at[e.track_uuid] = (ts, e)
        elif e.type == END:
            if e.track_uuid not in open_at:
                problems.append("slice ended unbegun on %s" % t["name"])
                continue
            start, b = open_at.pop(e.track_uuid)
            t["slices"] += 1
            if t["name"] == "command":
                command = {"name": b.name, "ns": ts - start}
                continue
            c = cgroups.setdefault(cg_of(e.track_uuid), {"throttle_count": 0, "throttle_ns": 0,
                                                          "waits": 0, "behind": {}, "cpus": [],
                                                          "periods": 0, "period_min_ns": None, "period_max_ns": None,
                                                          "period_run_max": 0, "runs": 0, "run_periods": 0,
                                                          "run_longest": 0})
            if b.name == "throttled":
                c["throttle_first_ns"] = min(c.get("throttle_first_ns", start), start)
                c["throttle_count"] += 1
                c["throttle_ns"] += ts - start
                if t["name"] not in c["cpus"]:
                    c["cpus"].append(t["name"])
            elif t["name"] == "throttled periods":
                n = ts - start
                c["periods"] += 1
                c["period_min_ns"] = n if c["period_min_ns"] is None else min(n, c["period_min_ns"])
                c["period_max_ns"] = n if c["period_max_ns"] is None else max(n, c["period_max_ns"])
                for a in b.debug_annotations:
                    if a.name == "throttled periods in a row so far":
                        c["period_run_max"] = max(c["period_run_max"], a.int_value)
            elif t["name"] == "throttled periods in a row":
                n = [a.int_value for a in b.debug_annotations if a.name == "periods"]
                c["runs"] += 1
                c["run_periods"] += n[0] if n else 0
                c["run_longest"] = max(c["run_longest"], n[0] if n else 0)
            elif b.name == "waited for a CPU":
                c["waits"] += 1
                for a in b.debug_annotations:
                    if a.name == "behind":
                        c["behind"][a.string_value] = c["behind"].get(a.string_value, 0) + 1
        elif e.type == COUNTER and t["name"] == "cgsched: events lost":
            lost = e.double_counter_value
    for uuid in open_at:
        problems.append("slice left open on %s" % tracks[uuid]["name"])
    out = {
        "decoded": True,
        "packets": len(trace.packet),
        "tracks": [{"name": t["name"], "path": t["path"], "counter": t["counter"], "slices": t["slices"],
                    "parent": tracks[t["parent"]]["name"] if t["parent"] in tracks else None,
                    "parent_path": tracks[t["parent"]]["path"] if t["parent"] in tracks else None}
                   for t in tracks.values()],
        "cgroups": cgroups,
        "spans": {k: {"first_ns": v[0], "last_ns": v[1]} for k, v in spans.items()},
        "command": command,
        "lost": lost,
        "problems": problems,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
