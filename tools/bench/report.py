#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the bench's "BENCH rep=R key=value ..." lines into a table and a JSON file.

    report.py LOG RESULTS.json                          (make bench: one TCG boot)
    report.py --platform PLATFORM RESULTS.json LOG...   (one LOG per boot)
    report.py --markdown RESULTS.json [TREE]            (the README's figures)
    report.py --user BENCH.json                         (make user-bench's targets)

PLATFORM is tcg (QEMU/TCG, `make bench`) or uml (User-Mode Linux,
`make bench-native`); every row of RESULTS.json carries it. With several boots,
each system gets a median and min per boot and across boots (the median of
the per-boot medians, the min of all samples); ratios compare the across-boot
medians, and per_boot_ratio gives each boot's own.

A measurement is a name plus its parameters; each system's samples give a
median, min and max. Ratios compare medians of the same run and say how many
times better the first system is (peer cost / tempo cost, or tempo rate / peer
rate for events/s), so > 1 favours tempo. Also writes targets.json beside
RESULTS.json with the issue's targets and whether this run met them.

--markdown prints, from a RESULTS.json written before, the table of ratios
that tools/bench/README.md shows: one row per lane, tier and tempo system,
against that system's peers and controls (PAIRS), each ratio with the range
of its per-boot ratios, then the `parts` prices. TREE (free text, e.g. a
commit) is printed in the line that names the run.
"""
import json
import os
import statistics
import sys

CAVEATS = {
    "tcg": ("Figures come from one boot of a QEMU/TCG guest (emulated CPU, shared host). "
            "Only ratios between systems within this run mean anything; absolute times do not, "
            "and the same kernel moves by ~30% between boots."),
    "uml": ("Figures come from User-Mode Linux boots on this host: the kernel's instructions run "
            "natively, but interrupts, IPIs, clock events and idle are host signals and system "
            "calls (~1 us), and a clock read is a vDSO call (~30 ns, against ~10-15 ns for a "
            "bare-metal TSC read). Compare ratios within a boot; see tools/bench/README.md."),
}
CAVEAT = CAVEATS["tcg"]
NOT_PARAMS = {"rep", "boot", "ok", "name", "system", "value", "unit", "ops", "count", "misordered", "armed_late", "wakeups",
              "put_us", "take_us", "deferred", "longest", "waits"}
HIGHER_IS_BETTER = {"events/s", "items/s"}

# (name, params that must match, tempo system, peer, need). need is a minimum
# ratio (peer cost / tempo cost): below 1 it is a "within" target, tempo may
# cost at most 1/need times the peer. A string need is absolute: "+50" means
# tempo's median at most the peer's + 50 (in the row's unit), "=0" that every
# sample of tempo's row is 0 (its max; the peer is None).
TIERS = ("1024", "65536", "1048576")
CPUS = ("1", "all")
WITHIN_LAZY = 1 / 1.5
TARGETS_UML = [
    # Re-arming a pending timer (COARSE, same-deadline contract): above timer_list's floor at 1K
    # and 1M; at 64K, where the object's footprint decides, against timer_list at 64 bytes.
    *[("postpone", {"outstanding": n, "cpus": c}, "tempo_coarse", "timer", 1.1)
      for n in (TIERS[0], TIERS[2]) for c in CPUS],
    *[("postpone", {"outstanding": TIERS[1], "cpus": c}, "tempo_coarse", "timer64", 1.0)
      for c in CPUS],
    ("xpostpone", {"outstanding": TIERS[0]}, "tempo_coarse", "timer", 1.1),
    ("xpostpone", {"outstanding": TIERS[1]}, "tempo_coarse", "timer64", 1.0),
    *[("postpone", {"outstanding": n, "cpus": c}, "tempo_coarse", "dwork", 3.0)
      for n in TIERS for c in CPUS],
    *[("xpostpone", {"outstanding": n}, "tempo_coarse", "dwork", 3.0) for n in TIERS[:2]],
    *[("cancel", {"outstanding": n, "cpus": c}, "tempo_coarse", "timer", 2.0)
      for n in TIERS for c in CPUS],
    *[("xcancel", {"outstanding": n}, "tempo_coarse", "timer", need)
      for n, need in (("1024", 1.5), ("65536", 2.0))],
    *[("cancel", {"outstanding": n, "cpus": c}, "tempo_coarse", "dwork", 3.0)
      for n in TIERS for c in CPUS],
    *[(lane, {"outstanding": n, "cpus": c}, "tempo_coarse", "lazyc", WITHIN_LAZY)
      for lane in ("cancel", "postpone") for n in TIERS[:2] for c in CPUS],
    *[("cancel", {"outstanding": n, "cpus": c}, "tempo", "hrtimer", 3.0)
      for n in TIERS for c in CPUS],
    # the microsecond kind (TEMPO_TIMER_FINE) keeps the cancel lane's lead
    *[("cancel", {"outstanding": n, "cpus": c}, "tempo_fine", "hrtimer", 3.0)
      for n in TIERS for c in CPUS],
    ("hirq", {}, "tempo_coarse", "timer", 1.5),
    # the ordering step at native cost: ticket + run against padata and a locked reorder buffer
    ("order", {}, "tempo_inline", "padata", 2.0),
    ("order", {}, "tempo_inline", "rob", 1.5),
]
TARGETS = [
    ("cancel", {"outstanding": "1048576", "cpus": "1"}, "tempo", "dwork", 2.0),
    ("cancel", {"outstanding": "1048576", "cpus": "1"}, "tempo", "timer", 1.5),
    ("cancel", {"outstanding": "1048576", "cpus": "all"}, "tempo", "dwork", 2.0),
    ("cancel", {"outstanding": "1048576", "cpus": "all"}, "tempo", "timer", 1.5),
    ("order", {}, "tempo", "padata", 2.0),
    ("order", {}, "tempo", "owq", 1.5),
    ("order", {}, "tempo_inline", "padata", 2.0),
    ("order", {}, "tempo_inline", "rob", 1.0),
    # /dev/tempo's ordered stream against the same pipeline in userspace
    ("u_order", {"size": "4"}, "tempo", "user", 1.0),
    ("u_order", {"size": "4096"}, "tempo", "user", 1.0),
    ("delayq", {}, "tempo", "java", 3.0),
    ("u_arm_cancel", {}, "tempo", "timerfd", 5.0),
    ("u_arm_cancel", {}, "tempo", "io_uring", 2.0),
    ("u_arm_cancel", {}, "tempo_uring", "io_uring", 2.0),
]
# The lateness of a reader's wake-up (section late, tools/bench/ulate.c):
# tempo's p50 within timerfd's + 50 us and its p99 within 2x timerfd's, read()
# and poll(), and no wake-up before its deadline, in every case.
LATE_CASES = [
    *[{"case": "one", "delay_us": d, "mode": m}
      for d in ("200", "1000", "5000", "20000") for m in ("random", "rearm")],
    {"case": "spread", "timers": "1000", "span_ms": "100"},
    {"case": "periodic", "period_us": "1000"},
    {"case": "periodic", "period_us": "20000"},
]
TARGETS += [
    (name, {**c, "stat": stat}, mine, peer, need)
    for name, c in [("u_late", c) for c in LATE_CASES]
    + [("u_wakeups", {"timers": "10000", "span_ms": "1000", "slack_us": "50"})]
    for mine in ("tempo", "tempo_poll") if name == "u_late" or mine == "tempo"
    for stat, peer, need in (("p50", "timerfd", "+50"), ("p99", "timerfd", 0.5),
                             ("early", None, "=0"))
] + [
    # as many interrupts and wake-ups as timerfd for the same timers, or fewer
    ("u_wakeups", {"timers": "10000", "span_ms": "1000", "slack_us": "50", "stat": stat},
     "tempo", "timerfd", 1.0) for stat in ("loc", "wakeups")
] + [
    # the kernel's microsecond kind against hrtimer, callback lateness, each
    # callback in the interrupt (tempo_fine's, on the workqueue, is listed)
    ("fire_lateness", {"stat": "p50"}, "tempo_fine_irq", "hrtimer", "+50"),
    # 10,000 FINE timers over a second with 50 us of slack: no more of
    # their CPU's interrupts than 10,000 hrtimers, timerfd's own
    ("coalesce", {"timers": "10000", "stat": "loc"}, "tempo_fine_slack", "hrtimer", 1.0),
]
# make user-bench (build/user/bench.json, one CPU, native): (section, key, what, peer section,
# peer key, minimum ratio peer / tempo). The ordering step against the seed's ring.
TARGETS_USER = [
    ("tempo_order", "run_in_order", "order run", "ullink_ring", "run_in_order", 1.0),
    ("tempo_order", "ticket_run", "order ticket+run", "ullink_ring", "run_in_order", 1.0),
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


# For --markdown: which tempo system each lane compares with which peers and
# which controls. A lane not listed compares every tempo system with every
# other system.
TIMER_LANES = ("cancel", "postpone", "xcancel", "xpostpone", "hirq")
PAIRS = {
    **{lane: [("tempo_coarse", ("timer", "dwork"), ("lazyc", "timer64", "timer56", "timer48")),
              ("tempo", ("hrtimer",), ("lazyp",)),
              ("tempo_fine", ("hrtimer",), ("lazyp",))] for lane in TIMER_LANES},
    "order": [("tempo_inline", ("rob", "padata", "owq"), ("cas",)),
              ("tempo", ("padata", "owq"), ()),
              ("tempo_spread", ("padata", "owq"), ())],
    "delayq": [("tempo", ("java",), ())],
    "delayq_immediate": [("tempo", ("java",), ())],
    **{lane: [("tempo", ("timerfd", "io_uring", "posix"), ()),
              ("tempo_uring", ("io_uring",), ())]
       for lane in ("u_arm_cancel", "u_arm_only", "u_cancel_only", "u_arm_expire",
                    "u_events_read")},
    "u_order": [("tempo", ("user",), ())],
    "fire_burst": [("tempo", ("dwork", "hrtimer"), ())],
    "fire_lateness": [("tempo", ("dwork", "hrtimer"), ()), ("tempo_fine", ("hrtimer",), ()),
                      ("tempo_fine_irq", ("hrtimer",), ())],
}
SHOWN = {"timer": "timer_list", "dwork": "delayed_work", "owq": "ordered wq"}
# Rows a platform cannot represent, said in the row rather than left out.
NOTES = {("uml", "order", "tempo"): "not representative here: a wake-up per item is a host signal",
         ("uml", "order", "tempo_spread"): "not representative here: a wake-up per item is a host signal"}
PLATFORMS = {"uml": "User-Mode Linux (`make bench-native`)", "tcg": "QEMU/TCG (`make bench`)"}


def count(n):
    n = int(n)
    for unit, size in (("M", 1 << 20), ("K", 1 << 10), ("K", 1000)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def tier(p):
    """A lane's parameters in words: "64K, 1 CPU", "32K items", "100K pending"."""
    words = []
    if "outstanding" in p:
        words.append(count(p["outstanding"]))
    elif "items" in p:
        words.append(count(p["items"]) + " items")
    if "size" in p:
        words.append(p["size"] + " B each")
    if "pending" in p:
        words.append(count(p["pending"]) + " pending")
    if p.get("cpus") == "1":
        words.append("1 CPU")
    elif p.get("cpus") == "all":
        words.append(f"{p['threads']} CPUs" if "threads" in p else "all CPUs")
    if "stat" in p:
        words.append(p["stat"])
    return ", ".join(words) or "-"


def markdown(args):
    """Print the README's table of ratios from a RESULTS.json."""
    if not args:
        sys.exit("usage: report.py --markdown RESULTS.json [TREE]")
    with open(args[0]) as f:
        results = json.load(f)
    tree = " ".join(args[1:]) or "(tree not given)"
    rows = {}
    for r in results:
        key = (r["name"], tuple(sorted(r["parameters"].items())))
        rows.setdefault(key, {})[r["system"]] = r
    platform = {r["platform"] for r in results}
    boots = {r.get("boots", 1) for r in results}
    print(f"Tree {tree}; {', '.join(PLATFORMS.get(p, p) for p in sorted(platform))}, "
          f"{'/'.join(str(b) for b in sorted(boots))} boot(s). Ratio = peer cost / tempo cost "
          "(tempo rate / peer rate for events/s and items/s), medians across boots, > 1 favours tempo; "
          "in brackets the lowest and highest per-boot ratio.\n")
    print("| lane | tier | tempo | against peers | against controls |")
    print("| --- | --- | --- | --- | --- |")

    def cell(r, others):
        out = []
        for o in others:
            x = r["ratio"].get(o)
            if x is None:
                continue
            pb = [v for v in r.get("per_boot_ratio", {}).get(o, []) if v]
            rng = f" [{min(pb):.2f}–{max(pb):.2f}]" if len(pb) > 1 else ""
            out.append(f"{SHOWN.get(o, o)} {x:.2f}x{rng}")
        return ", ".join(out) or "-"

    parts = None
    for (name, params), systems in rows.items():
        if name == "parts":
            parts = systems
            continue
        pairs = PAIRS.get(name) or [
            (s, tuple(o for o in systems if not o.startswith("tempo")), ())
            for s in systems if s.startswith("tempo")]
        for mine, peers, controls in pairs:
            r = systems.get(mine)
            if r is None:
                continue
            note = NOTES.get((r["platform"], name, mine))
            print(f"| {name} | {tier(dict(params))} | {mine} | {cell(r, peers)}"
                  f"{f' ({note})' if note else ''} | {cell(r, controls)} |")
    if parts:
        print("\n`parts` in the same boots, ns per call (medians): " + ", ".join(
            f"{s} {r['median']:.1f}" for s, r in sorted(parts.items())) + ".")


def user(args):
    """Print TARGETS_USER, MET or MISSED, from make user-bench's JSON."""
    if len(args) != 1:
        sys.exit("usage: report.py --user BENCH.json")
    with open(args[0]) as f:
        b = json.load(f)
    print("Targets (make user-bench, ns/op, best of its rounds; ratio = peer / tempo):")
    for sec, key, what, psec, pkey, need in TARGETS_USER:
        mine, peer = b.get(sec, {}).get(key), b.get(psec, {}).get(pkey)
        got = advantage(mine, peer, "ns/op")
        status = "n/a" if got is None else ("MET" if got >= need else "MISSED")
        print(f"  {status:6s} {what} vs {psec} {pkey} >= {need}x: "
              f"{'-' if got is None else f'{got:.2f}x ({mine:.1f} vs {peer:.1f} ns)'}")


def main():
    global CAVEAT
    args = sys.argv[1:]
    if args and args[0] == "--markdown":
        markdown(args[1:])
        return
    if args and args[0] == "--user":
        user(args[1:])
        return
    platform = "tcg"
    if args and args[0] == "--platform":
        platform, args = args[1], args[2:]
        out, logs = args[0], args[1:]
    else:
        logs, out = [args[0]], args[1]
    CAVEAT = CAVEATS[platform]
    targets_def = TARGETS_UML if platform == "uml" else TARGETS
    rows, errors, info = [], [], {}
    for b, log in enumerate(logs, 1):
        r, e, i = parse(log)
        for x in r:
            x["boot"] = b
        rows += r
        errors += e
        info.update(i)
    nboots = len(logs)
    groups = {}
    for r in rows:
        params = {k: v for k, v in r.items() if k not in NOT_PARAMS}
        key = (r["name"], tuple(sorted(params.items())), r["unit"])
        groups.setdefault(key, {}).setdefault(r["system"], {}).setdefault(
            r["boot"], []).append(float(r["value"]))

    results = []
    print(CAVEAT)
    if info:
        print("guest: " + " ".join(f"{k}={v}" for k, v in info.items()))
    print(f"platform {platform}, {nboots} boot(s). Ratio column: how many times better tempo is "
          "than each peer (medians; > 1 favours tempo)" +
          (": across boots, the median of the per-boot medians; per boot in brackets" if nboots > 1 else "")
          + "\n")
    for (name, params, unit), systems in groups.items():
        boot_meds = {s: {b: statistics.median(v) for b, v in per.items()} for s, per in systems.items()}
        meds = {s: statistics.median(bm.values()) for s, bm in boot_meds.items()}
        allv = {s: [x for v in per.values() for x in v] for s, per in systems.items()}
        pstr = " ".join(f"{k}={v}" for k, v in params if k != "system")
        print(f"{name} {pstr}  [{unit}, {'higher' if unit in HIGHER_IS_BETTER else 'lower'} is better]")
        order = sorted(systems, key=lambda s: (not s.startswith("tempo"), s))
        for s in order:
            v = allv[s]
            ratios = {} if name == "parts" else {
                o: advantage(meds[s], meds[o], unit) for o in systems if o != s}
            per_boot_ratio = {} if name == "parts" else {
                o: [advantage(boot_meds[s].get(b), boot_meds[o].get(b), unit)
                    for b in range(1, nboots + 1)] for o in systems if o != s}
            results.append({
                "name": name, "system": s, "parameters": dict(params), "platform": platform,
                "median": meds[s], "min": min(v), "max": max(v), "samples": len(v),
                "boots": nboots,
                "per_boot": [{"boot": b, "median": boot_meds[s][b], "min": min(systems[s][b]),
                              "samples": len(systems[s][b])} for b in sorted(systems[s])],
                "unit": unit, "higher_is_better": unit in HIGHER_IS_BETTER,
                "ratio": {o: (round(x, 3) if x is not None else None) for o, x in ratios.items()},
                "per_boot_ratio": {o: [round(x, 3) if x is not None else None for x in xs]
                                   for o, xs in per_boot_ratio.items()},
            })
            rs = ""
            if s.startswith("tempo"):
                def one(o):
                    if not ratios[o]:
                        return f"- vs {o}"
                    pb = ""
                    if nboots > 1:
                        pb = " [" + " ".join(f"{x:.2f}" if x else "-" for x in per_boot_ratio[o]) + "]"
                    return f"x{ratios[o]:.2f}{pb} vs {o}"
                rs = "  " + "  ".join(one(o) for o in order if not o.startswith("tempo"))
            pbs = ""
            if nboots > 1:
                pbs = "  per boot med/min " + " ".join(
                    f"{boot_meds[s][b]:.1f}/{min(systems[s][b]):.1f}" for b in sorted(systems[s]))
            print(f"  {s:13s} median {meds[s]:12.3f}  min {min(v):12.3f}  max {max(v):12.3f}"
                  f"  n={len(v)}{pbs}{rs}")
        print()

    targets = []
    print("Targets (ratios of medians in this run):")
    for name, want, mine, peer, need in targets_def:
        got = None
        rows = {r["system"]: r for r in results if r["name"] == name and all(
            r["parameters"].get(k) == v for k, v in want.items())}
        where = ' '.join(f'{k}={v}' for k, v in want.items())
        if isinstance(need, str) and need.startswith("="):
            if mine in rows:
                got = rows[mine]["max"]
            ok = got is not None and got == float(need[1:])
            desc = f"{name} {where} {mine} every sample {need[1:]}"
            shown = '-' if got is None else f"max {got:g}"
        elif isinstance(need, str):
            if mine in rows and peer in rows:
                got = rows[mine]["median"] - rows[peer]["median"]
            ok = got is not None and got <= float(need[1:])
            desc = f"{name} {where} {mine} within {peer} {need} {rows.get(mine, {}).get('unit', '')}"
            shown = '-' if got is None else f"{got:+.1f}"
        else:
            if mine in rows:
                got = rows[mine]["ratio"].get(peer)
            ok = got is not None and got >= need
            if need < 1:
                desc = f"{name} {where} {mine} within {1 / need:.1f}x of {peer} (vs {peer} >= {need:.2f}x)"
            else:
                desc = f"{name} {where} {mine} vs {peer} >= {need}x"
            shown = '-' if got is None else f"{got:.2f}x"
        status = "n/a" if got is None else ("MET" if ok else "MISSED")
        print(f"  {status:6s} {desc}: {shown}")
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
        json.dump({"caveat": CAVEAT, "platform": platform, "boots": nboots, "guest": info, "targets": targets, "errors": errors}, f, indent=1)
        f.write("\n")
    print(f"\nwrote {out} ({len(results)} measurements) and targets.json; {CAVEAT.split('.')[1].strip()}.")


if __name__ == "__main__":
    main()
