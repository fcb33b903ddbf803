#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one test-VM run into a verdict.

Reads the JSON that the kernel's `kunit.py parse --json` wrote from the
combined KTAP document, the KTAP itself and the guest's console log. Counts
test cases (leaves) as passed, failed or skipped, and adds one failure for each
problem outside the test results: a kernel splat in the console log, a
"tempo-vm: FAIL" line from the guest init, a suite or program that did not
report, a missing final marker, a hung guest.

The last line printed is exactly "N passed, N failed" (", N skipped" added
when N > 0). The exit status is 1 when anything failed, else 0.
"""

import argparse
import json
import os
import re
import sys

# Kernel log lines that mean something went wrong, whatever the tests said.
SPLATS = [
    "BUG:", "WARNING:", "Oops", "KASAN", "UBSAN:", "kernel BUG", "Kernel panic",
    "general protection fault", "possible circular locking",
    "inconsistent lock state", "possible recursive locking",
    "suspicious RCU usage", "blocked for more than", "soft lockup",
    "detected stalls on CPU", "self-detected stall", "ODEBUG",
    "list_add corruption", "list_del corruption",
    "sleeping function called from invalid context", "refcount_t:",
]
# A trace is expected right after a splat (already counted) or an allowed line.
TRACE = "Call Trace:"
TRACE_WINDOW = 200  # lines after a splat header that may belong to it

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")

# A KCSAN report runs from its "BUG: KCSAN:" line to the next line of "=" signs.
KCSAN_HEAD = "BUG: KCSAN:"
KCSAN_END = re.compile(r"^={20,}\s*$")


# An access "by interrupt" is followed by the stack of whatever the interrupt
# hit: that task's frames are not the access's. Cut each stack at the entry.
IRQ_ENTRY = re.compile(r"\basm_(sysvec_|common_interrupt|exc_)")


# The report's trailer ("Reported by ...", then the CPU, hardware and "Workqueue:"
# lines) describes whatever task the reporting CPU was running, not the accesses.
KCSAN_TRAILER = "Reported by Kernel Concurrency Sanitizer on:"


def kcsan_own_frames(block):
    """The lines of a KCSAN report without the frames below an interrupt entry,
    and without the trailer."""
    out, cut = [], False
    for line in block:
        text = TIMESTAMP.sub("", line)
        if text.startswith(KCSAN_TRAILER):
            break
        if not text.startswith(" ") or not text.strip():
            cut = False  # a header ("read to ... by interrupt"), a blank line
        if not cut:
            out.append(line)
        if IRQ_ENTRY.search(text):
            cut = True
    return out


def kcsan_top_frames(block):
    """The first frame of each access's stack: the function that made the access."""
    top, prev_frame = [], False
    for line in block:
        text = TIMESTAMP.sub("", line)
        frame = text.startswith(" ") and bool(text.strip())
        if frame and not prev_frame:
            top.append(line)
        prev_frame = frame
    return top


def kcsan_blocks(lines, scope, top_scope=()):
    """Line numbers (0-based) of KCSAN reports to ignore: those whose text (the
    stacks of both accesses) matches no regex of @scope, and neither of whose
    accesses was made by a function matching a regex of @top_scope. Only with
    --kcsan-scope or --kcsan-scope-top."""
    skip = set()
    ignored = 0
    if not scope and not top_scope:
        return skip, ignored
    i = 0
    while i < len(lines):
        if KCSAN_HEAD not in lines[i]:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not KCSAN_END.match(TIMESTAMP.sub("", lines[j])):
            j += 1
        block = kcsan_own_frames(lines[i:j])
        top = kcsan_top_frames(block)
        if not any(r.search(l) for r in scope for l in block) and \
                not any(r.search(l) for r in top_scope for l in top):
            skip.update(range(i, j))
            ignored += 1
        i = j
    return skip, ignored


def load_allow(path):
    allow = []
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    allow.append(re.compile(line))
    return allow


def scan_console(path, allow, scope=None, top_scope=()):
    """Return (problems, guest_failures, reached_end, ignored KCSAN reports,
    reports during boot).

    A report before the kernel runs /init is the test kernel's own: tempo is
    loaded by /init, so no code of ours has run yet. It is counted apart and
    shown, not failed (7.2 under TCG once hit KASAN in handle_edge_irq()
    during identify_cpu(), 7 ms into boot)."""
    problems, guest_fail, seen = [], [], set()
    reached_end = False
    booted, boot_reports = False, 0
    last_splat = -TRACE_WINDOW - 1
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().replace("\r", "").split("\n")
    except OSError:
        return ["console log %s missing" % path], [], False, 0

    skip, ignored = kcsan_blocks(lines, scope, top_scope)
    for no, raw in enumerate(lines, 1):
        if no - 1 in skip:
            continue
        text = TIMESTAMP.sub("", raw)
        if text.startswith("Run /init as init process"):
            booted = True
        if text.startswith("tempo-vm: FAIL "):
            guest_fail.append(text[len("tempo-vm: FAIL "):])
            continue
        if text == "tempo-vm: done":
            reached_end = True
            continue
        if any(a.search(text) for a in allow):
            last_splat = no
            continue
        hit = next((s for s in SPLATS if s in text), None)
        if hit is None and TRACE in text and no - last_splat > TRACE_WINDOW:
            hit = TRACE
        if hit is None:
            continue
        if hit != TRACE:
            last_splat = no
        if not booted:
            boot_reports += hit != TRACE
            continue
        key = re.sub(r"\b\d+\b", "#", text)  # the same report from another CPU
        if key in seen:
            continue
        seen.add(key)
        problems.append("console.log:%d: %s" % (no, text.strip()))
    return problems, guest_fail, reached_end, ignored, boot_reports


def leaves(group, path):
    for case in group.get("test_cases", []):
        yield path + [case["name"]], case["status"]
    for sub in group.get("sub_groups", []):
        yield from leaves(sub, path + [sub["name"]])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", required=True)
    ap.add_argument("--ktap", required=True)
    ap.add_argument("--console", required=True)
    ap.add_argument("--allow", help="file of regexes for log lines to tolerate")
    ap.add_argument("--expect", type=int, required=True,
                    help="top-level KTAP entries expected (suites + programs)")
    ap.add_argument("--parse-rc", type=int, default=0)
    ap.add_argument("--parse-log")
    ap.add_argument("--vm-rc", type=int, default=0)
    ap.add_argument("--kcsan-scope", action="append", default=[],
                    help="regex: count a KCSAN report only if one of its lines matches "
                         "(repeatable); reports matching none are listed, not counted")
    ap.add_argument("--kcsan-scope-top", action="append", default=[],
                    help="regex: also count a KCSAN report if the first frame of either "
                         "access (the function that made it) matches (repeatable)")
    args = ap.parse_args()

    passed = failed = skipped = 0
    notes = []

    def problem(msg):
        nonlocal failed
        failed += 1
        notes.append("FAIL " + msg)

    # "# <case>: EXPECTATION FAILED at <file:line>" lines, to name the spot.
    where = {}
    try:
        with open(args.ktap, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"^\s*# (\S+): (EXPECTATION|ASSERTION) FAILED at (\S+)", line)
                if m:
                    where.setdefault(m.group(1), []).append(m.group(3))
    except OSError:
        pass

    data = None
    if os.path.exists(args.json) and os.path.getsize(args.json):
        try:
            with open(args.json, encoding="utf-8") as f:
                data = json.load(f)
        except ValueError as e:
            problem("cannot read %s: %s" % (args.json, e))
    else:
        problem("no test results (%s missing or empty)" % args.json)

    top = {}
    failing_top = set()
    if data is not None:
        for sub in data.get("sub_groups", []):
            top[sub["name"]] = sub
        for case in data.get("test_cases", []):
            top[case["name"]] = case
        for path, status in leaves(data, []):
            name = ".".join(path)
            if status == "PASS":
                passed += 1
            elif status == "SKIP":
                skipped += 1
                notes.append("skip " + name)
            else:
                failing_top.add(path[0])
                at = where.get(path[-1])
                problem("%s (%s%s)" % (name, status,
                                       ", failed at " + ", ".join(at) if at else ""))

    # A suite or program can say "not ok" with every case passing (e.g. its
    # init or exit failed); the JSON only keeps the cases, so read the KTAP.
    try:
        with open(args.ktap, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"^not ok \d+ (\S+)(.*)$", line.rstrip("\n"))
                if m and "# SKIP" not in m.group(2) and m.group(1) not in failing_top:
                    problem("%s reported not ok%s" % (m.group(1), m.group(2)))
    except OSError:
        pass

    if data is not None and len(top) != args.expect:
        problem("%d of %d expected suites/programs reported (%s)"
                % (len(top), args.expect, ", ".join(sorted(top)) or "none"))

    if args.parse_rc != 0 and failed == 0:
        problem("kunit.py parse exited %d; see %s" % (args.parse_rc, args.parse_log))

    allow = load_allow(args.allow)
    scope = [re.compile(r) for r in args.kcsan_scope]
    top_scope = [re.compile(r) for r in args.kcsan_scope_top]
    splats, guest_fail, reached_end, ignored, boot_reports = scan_console(
        args.console, allow, scope, top_scope)
    if boot_reports:
        notes.append("note: %d kernel report line(s) during boot, before /init loaded tempo, "
                     "not counted (see %s)" % (boot_reports, args.console))
    if ignored:
        notes.append("note: %d KCSAN report(s) outside tempo code ignored (see %s)"
                     % (ignored, args.console))
    for msg in guest_fail:
        problem("guest: " + msg)
    for msg in splats:
        problem("kernel log: " + msg)
    if args.vm_rc == 124:
        problem("guest hung: no power-off before the timeout (see %s)" % args.console)
    elif args.vm_rc != 0:
        problem("QEMU exited with status %d" % args.vm_rc)
    elif not reached_end:
        problem("guest never reached its final marker 'tempo-vm: done' (crash? see %s)"
                % args.console)

    for name, node in sorted(top.items()):
        sub = list(leaves(node, [])) if "test_cases" in node else [([], node["status"])]
        n_pass = sum(1 for _, s in sub if s == "PASS")
        n_skip = sum(1 for _, s in sub if s == "SKIP")
        print("  %-32s %d passed, %d failed, %d skipped"
              % (name, n_pass, len(sub) - n_pass - n_skip, n_skip))
    for note in notes:
        print("  " + note)

    line = "%d passed, %d failed" % (passed, failed)
    if skipped:
        line += ", %d skipped" % skipped
    print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
