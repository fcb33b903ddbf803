#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the bench VM's "BENCH rep=R key=value ..." lines into a table and a JSON file.

    report.py LOG RESULTS.json

A measurement is a name plus its parameters; each system's samples give a
median, min and max. Ratios compare medians of the same run and say how many
times better the first system is (peer cost / tempo cost, or tempo rate / peer
rate for events/s), so > 1 favours tempo. Also writes targets.json beside
RESULTS.json with the issue's targets and whether this run met them.
"""
import json
import os
import statistics
import sys

CAVEAT = ("Figures come from one boot of a QEMU/TCG guest (emulated CPU, shared host). "
          "Only ratios between systems within this run mean anything; absolute times do not, "
          "and the same kernel moves by ~30% between boots.")
NOT_PARAMS = {"rep", "name", "system", "value", "unit", "ops", "count", "misordered", "armed_late", "wakeups",
              "put_us", "take_us"}
HIGHER_IS_BETTER = {"events/s"}

# (name, params that must match, tempo system, peer, minimum ratio)
TARGETS = [
    ("cancel", {"outstanding": "1048576", "cpus": "1"}, "tempo", "dwork", 2.0),
    ("cancel", {"outstanding": "1048576", "cpus": "1"}, "tempo", "timer", 1.5),
    ("cancel", {"outstanding": "1048576", "cpus": "all"}, "tempo", "dwork", 2.0),
    ("cancel", {"outstanding": "1048576", "cpus": "all"}, "tempo", "timer", 1.5),
    ("order", {}, "tempo", "padata", 2.0),
    ("order", {}, "tempo_inline", "padata", 2.0),
    ("delayq", {}, "tempo", "java", 3.0),
    ("u_arm_cancel", {}, "tempo", "timerfd", 5.0),
    ("u_arm_cancel", {}, "tempo", "io_uring", 2.0),
]


def parse(path):
    rows, errors, info = [], [], {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip().replace("\r", "")
            i = line.find("BENCH")
            if i < 0:
                continue
            line = line[i:]
            if line.startswith("BENCH-INFO"):
                info.update(p.split("=", 1) for p in line.split()[1:] if "=" in p)
                continue
            if line.startswith("BENCH-ERR") or line.startswith("BENCH-SKIP"):
                errors.append(line)
                continue
            if not line.startswith("BENCH "):
                continue
            kv = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
            if {"name", "system", "value", "unit"} <= kv.keys():
                rows.append(kv)
    return rows, errors, info


def advantage(mine, other, unit):
    if mine is None or other is None or mine <= 0 or other <= 0:
        return None
    return mine / other if unit in HIGHER_IS_BETTER else other / mine


def main():
    log, out = sys.argv[1], sys.argv[2]
    rows, errors, info = parse(log)
    groups = {}
    for r in rows:
        params = {k: v for k, v in r.items() if k not in NOT_PARAMS}
        key = (r["name"], tuple(sorted(params.items())), r["unit"])
        groups.setdefault(key, {}).setdefault(r["system"], []).append(float(r["value"]))

    results = []
    print(CAVEAT)
    if info:
        print("guest: " + " ".join(f"{k}={v}" for k, v in info.items()))
    print("ratio column: how many times better tempo is than each peer in this run "
          "(medians; > 1 favours tempo)\n")
    for (name, params, unit), systems in groups.items():
        meds = {s: statistics.median(v) for s, v in systems.items()}
        pstr = " ".join(f"{k}={v}" for k, v in params if k != "system")
        print(f"{name} {pstr}  [{unit}, {'higher' if unit in HIGHER_IS_BETTER else 'lower'} is better]")
        order = sorted(systems, key=lambda s: (not s.startswith("tempo"), s))
        for s in order:
            v = systems[s]
            ratios = {} if name == "parts" else {
                o: advantage(meds[s], meds[o], unit) for o in systems if o != s}
            results.append({
                "name": name, "system": s, "parameters": dict(params),
                "median": meds[s], "min": min(v), "max": max(v), "samples": len(v),
                "unit": unit, "higher_is_better": unit in HIGHER_IS_BETTER,
                "ratio": {o: (round(x, 3) if x is not None else None) for o, x in ratios.items()},
            })
            rs = ""
            if s.startswith("tempo"):
                rs = "  " + "  ".join(f"x{ratios[o]:.2f} vs {o}" if ratios[o] else f"- vs {o}"
                                      for o in order if not o.startswith("tempo"))
            print(f"  {s:13s} median {meds[s]:12.3f}  min {min(v):12.3f}  max {max(v):12.3f}"
                  f"  n={len(v)}{rs}")
        print()

    targets = []
    print("Targets (ratios of medians in this run):")
    for name, want, mine, peer, need in TARGETS:
        got = None
        for r in results:
            if r["name"] == name and r["system"] == mine and all(
                    r["parameters"].get(k) == v for k, v in want.items()):
                got = r["ratio"].get(peer)
                params = r["parameters"]
                break
        status = "n/a" if got is None else ("MET" if got >= need else "MISSED")
        desc = f"{name} {' '.join(f'{k}={v}' for k, v in want.items())} {mine} vs {peer} >= {need}x"
        print(f"  {status:6s} {desc}: {'-' if got is None else f'{got:.2f}x'}")
        targets.append({"target": desc, "name": name, "parameters": want, "system": mine,
                        "peer": peer, "need": need, "got": got, "status": status})
    if errors:
        print("\nFailed or skipped measurements:")
        for e in errors:
            print("  " + e)
    with open(out, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    with open(os.path.join(os.path.dirname(out), "targets.json"), "w") as f:
        json.dump({"caveat": CAVEAT, "guest": info, "targets": targets, "errors": errors}, f, indent=1)
        f.write("\n")
    print(f"\nwrote {out} ({len(results)} measurements) and targets.json; {CAVEAT.split('.')[1].strip()}.")


if __name__ == "__main__":
    main()
