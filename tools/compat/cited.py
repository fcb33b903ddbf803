#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every path and function a comment or a document of tempo cites must exist.

    tools/compat/cited.py KERNEL-TREE

`make style` runs it with the kernel source tree it checks the style with. It reads
tempo's own files (kmod/, include/, kunit/, tools/, Documentation/, README.md and the
build files) and looks at two kinds of citation:

- a relative path that climbs (../x): it must exist, inside this tree;
- a path that starts with one of the tree's top folders (kmod/, tools/, kunit/,
  include/, Documentation/): it must exist in this tree, or in the kernel tree (a
  comment may cite include/linux/llist.h or tools/memory-model/), or be a build output
  (.o, .ko, .a, a program under build/);
- a name written as a call with no arguments, `name()`, in a C comment or in a
  document: it must be defined or used as a call in code somewhere, in this tree's
  code (comments left out), in the kernel tree, or in the system's headers (the
  userspace API: timerfd_create(), io_uring_submit()). A member or method
  (`.take()`, `->fn()`, `Foo::bar()`) is not a citation of a function of ours;
- a kernel-doc directive of Documentation/*.rst: its file must exist and hold
  the DOC: section it names; and every DOC: section of kmod/ and include/ must
  be pulled by one, so that the design document has all of the design;
- a tracker's number ("issue 12", "task #3", "bug 7"): it means nothing to a
  reader of the tree, which says what the code is, not the history that made it.

It prints one line per citation that resolves nowhere, FILE:LINE: the citation, and
exits 1 if there is any. The kernel tree's names are indexed once per tree and kept
in the tempo cache.
"""

import os
import re
import subprocess
import sys

TOPS = ("kmod", "tools", "kunit", "include", "Documentation")
PATH_RE = re.compile(r"(?<![\w/.$-])((?:%s)/[A-Za-z0-9_./@+*-]*[A-Za-z0-9_*])" % "|".join(TOPS))
# A relative path up the tree: it must stay inside it.
REL_RE = re.compile(r"(?<![\w/.])((?:\.\./)+[A-Za-z0-9_./@+-]*[A-Za-z0-9_])")
TRACKER_RE = re.compile(r"\b(?:[Ii]ssue|[Tt]ask|[Bb]ug)s? ?#?[0-9]+\b")
CALL_RE = re.compile(r"(?<![\w.>:$])([A-Za-z_][A-Za-z0-9_]*)\(\)")
IDENT_CALL_RE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
BUILD_SUFFIXES = (".o", ".ko", ".a", ".so", ".json", ".log", ".ktap")
# Java's and Go's methods (getDelay()), named where tempo is compared with them.
CAMEL_RE = re.compile(r"[a-z]+[A-Z]")
# C keywords and words of prose that read as calls.
NOT_NAMES = {"if", "for", "while", "switch", "return", "sizeof", "typeof", "defined"}


def tree_files(top):
    """Tracked files when this is a git checkout, else every file."""
    try:
        out = subprocess.run(["git", "-C", top, "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split("\n")
        files = [f for f in out if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk(top):
        dirs[:] = [x for x in dirs if x not in (".git", "build")]
        files += [os.path.relpath(os.path.join(d, n), top) for n in names]
    return files


def strip_c_comments(text):
    """C text with its comments and string literals blanked (newlines kept)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', blank, text, flags=re.S)


def c_comments(text):
    """(line, comment text) for each comment of a C file."""
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, flags=re.S):
        yield text.count("\n", 0, m.start()) + 1, m.group(0)


def names_in_code(path, text):
    if path.endswith((".c", ".h")):
        return set(IDENT_CALL_RE.findall(strip_c_comments(text)))
    if path.endswith(".py"):
        return set(re.findall(r"^\s*def\s+(\w+)", text, flags=re.M))
    if path.endswith((".sh", ".mk")) or "/" not in path or os.path.basename(path) in (
            "run", "init", "Makefile"):
        return set(re.findall(r"^\s*(?:function\s+)?([A-Za-z_]\w*)\s*\(\)", text, flags=re.M))
    return set()


def kernel_names(ktree, cache):
    """Every identifier used as a call in the kernel tree's C, indexed once per tree."""
    os.makedirs(cache, exist_ok=True)
    key = os.path.realpath(ktree).strip("/").replace("/", "_")
    idx = os.path.join(cache, "cited-names-" + key)
    if os.path.exists(idx):
        with open(idx) as f:
            return set(f.read().split())
    names = set()
    for d, _, files in os.walk(ktree):
        for n in files:
            if n.endswith((".c", ".h")):
                try:
                    with open(os.path.join(d, n), errors="replace") as f:
                        names.update(IDENT_CALL_RE.findall(f.read()))
                except OSError:
                    pass
    # SYSCALL_DEFINEn(name, ...) defines name(): the syscalls timerfd and io_uring cite.
    names |= system_names("/usr/include")
    with open(idx + ".tmp", "w") as f:
        f.write("\n".join(sorted(names)))
    os.replace(idx + ".tmp", idx)
    return names


def system_names(root):
    names = set()
    for d, _, files in os.walk(root):
        for n in files:
            if n.endswith(".h"):
                try:
                    with open(os.path.join(d, n), errors="replace") as f:
                        names.update(IDENT_CALL_RE.findall(f.read()))
                except OSError:
                    pass
    return names


def path_exists(top, ktree, p):
    p = p.rstrip(".")
    for root in (top, ktree):
        if not root:
            continue
        if "*" in p:
            import glob
            if glob.glob(os.path.join(root, p)):
                return True
        elif os.path.exists(os.path.join(root, p)):
            return True
    # A program is cited by its name, built from NAME.c.
    return p.endswith(BUILD_SUFFIXES) or os.path.exists(os.path.join(top, p + ".c"))


DOC_RE = re.compile(r"^/\*\*\n \* DOC: (.+)$", re.M)
DIRECTIVE_RE = re.compile(r"^\.\. kernel-doc:: (\S+)\n((?:   :.*\n?)*)", re.M)


def kernel_doc_directives(top, texts):
    """Directives naming a DOC: section that is not there; DOC: sections no directive pulls."""
    bad = []
    defined = {}
    for f, t in texts.items():
        if f.split("/")[0] in ("kmod", "include") and f.endswith((".c", ".h")):
            for m in DOC_RE.finditer(t):
                defined[(f, m.group(1).strip())] = t.count("\n", 0, m.start()) + 2
    pulled = set()
    for f, t in texts.items():
        if not f.endswith(".rst"):
            continue
        for m in DIRECTIVE_RE.finditer(t):
            path, opts = m.group(1), m.group(2)
            line = t.count("\n", 0, m.start()) + 1
            if path not in texts:
                bad.append((f, line, path))
                continue
            docs = re.findall(r"^   :doc: (.+)$", opts, re.M)
            if not opts.strip():
                # No option: the file's every kernel-doc comment, DOC: sections too.
                pulled.update(k for k in defined if k[0] == path)
            for d in docs:
                key = (path, d.strip())
                pulled.add(key)
                if key not in defined:
                    bad.append((f, line, "%s's DOC: %s" % key))
    for key, line in sorted(defined.items()):
        if key not in pulled:
            bad.append((key[0], line, "DOC: %s, pulled by no document" % key[1]))
    return bad


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n")[2].strip(), file=sys.stderr)
        return 2
    ktree = sys.argv[1]
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                         text=True).stdout.strip() or os.getcwd()
    cache = os.environ.get("TEMPO_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "tempo")
    files = [f for f in tree_files(top)
             if f.split("/")[0] in TOPS + (".ci",) or "/" not in f]
    texts = {}
    for f in files:
        try:
            with open(os.path.join(top, f), errors="replace") as fh:
                texts[f] = fh.read()
        except (OSError, IsADirectoryError):
            pass
    ours = set()
    for f, t in texts.items():
        ours |= names_in_code(f, t)
    known = ours | kernel_names(ktree, cache)
    # A comment may cite our own functions by their last words: put_at() for
    # tempo_delayq_put_at(), as the headers' matrices do.
    for name in ours:
        parts = name.split("_")
        known.update("_".join(parts[i:]) for i in range(1, len(parts)))

    bad = []
    for f, t in sorted(texts.items()):
        is_c = f.endswith((".c", ".h"))
        if is_c:
            chunks = list(c_comments(t))
        elif f.endswith((".md", ".rst", ".txt")) or f.endswith(".8"):
            chunks = [(1, t)]
        else:
            # Scripts and build files: their comments only.
            chunks = [(i + 1, line) for i, line in enumerate(t.split("\n"))
                      if line.lstrip().startswith("#")]
        for line0, text in chunks:
            for m in TRACKER_RE.finditer(text):
                bad.append((f, line0 + text.count("\n", 0, m.start()), '"%s"' % m.group(0)))
            for m in REL_RE.finditer(text):
                target = os.path.normpath(os.path.join(top, os.path.dirname(f), m.group(1)))
                if not target.startswith(top + os.sep) or not os.path.exists(target):
                    bad.append((f, line0 + text.count("\n", 0, m.start()), m.group(1)))
            for m in PATH_RE.finditer(text):
                if not path_exists(top, ktree, m.group(1)):
                    bad.append((f, line0 + text.count("\n", 0, m.start()), m.group(1)))
            if is_c or f.endswith((".md", ".rst", ".8")):
                for m in CALL_RE.finditer(text):
                    name = m.group(1)
                    if name in NOT_NAMES or name in known or CAMEL_RE.match(name):
                        continue
                    bad.append((f, line0 + text.count("\n", 0, m.start()), name + "()"))
    bad += kernel_doc_directives(top, texts)
    for f, line, what in bad:
        if what.startswith("DOC: "):
            print("%s:%d: %s" % (f, line, what))
        elif what.startswith('"'):
            print("%s:%d: cites %s, a tracker's number" % (f, line, what))
        else:
            print("%s:%d: cites %s, which is nowhere" % (f, line, what))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
