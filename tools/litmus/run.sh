#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make litmus`: run every tools/litmus/*.litmus with herd7 and the Linux-kernel memory model
# (tools/memory-model of the kernel source that tools/vm/kernel.sh extracted) and check it.
#
#   tools/litmus/run.sh [TEST.litmus...]
#
# Each test's header comment carries the lines the runner reads:
#   Result: Never|Sometimes|Always   what herd7 must report for the test as written
#   Weaken: L1 L2+L3 ...             for each item, the lines of the test tagged
#                                    "// LMM(L)" (every L of a "+" group at once) are
#                                    weakened: acquire/release/full RMWs become _relaxed,
#                                    smp_load_acquire/smp_store_release become
#                                    READ_ONCE/WRITE_ONCE, smp_mb() is deleted. Each
#                                    weakened copy must no longer be "Never": the barrier
#                                    at that label is what the result depends on.
#   File: kmod/<f>.c [kmod/<g>.c...] the sources the labels come from (a pair may span
#                                    the files of one core): every label with a colon must
#                                    occur in one of them as "LMM(label)", so a test cannot
#                                    outlive the barrier it encodes. (Labels without a colon
#                                    name the kernel's side of a pair, e.g.
#                                    set_current_state.) Skipped while a file is not on
#                                    this branch.
# and, when the File check passes, the runner checks that the code is as ordered as the
# test: each labelled line of the test and each statement the label marks in the File are
# put in a class, relaxed < acquire, release < full, and the source must be at least what
# the test claims ("not ok - T: source F LMM(l) is relaxed but the test claims release").
#   Classes: smp_mb(), smp_store_mb(), xchg/cmpxchg/try_cmpxchg and the value-returning
#   atomic*_ RMWs (xchg, cmpxchg, try_cmpxchg, *_return, fetch_*, *_and_test, ...) with
#   no suffix are full; _acquire/_release/_relaxed suffixes, smp_load_acquire() and
#   smp_store_release() give their class; READ_ONCE/WRITE_ONCE, atomic*_read/_set and
#   the void atomic*_ RMWs (inc, add, ...) are relaxed. Anything else (smp_rmb(),
#   cmpxchg_local(), a helper) is unclassified.
#   The statement a label marks: a comment that starts with "LMM(l)" ("/* LMM(l)" or a
#   " * LMM(l)" line; a mention later in a comment is a reference) labels the code after
#   the comment's "*/" on the same line, else the next statement after it (blank lines
#   and other comments skipped, continued until its parentheses balance); code before a
#   "/* LMM(l) */" on its line is the statement. Every such place must pass; a label that
#   marks no code fails.
#   A statement with no primitive, an unclassified one or more than one fails unless the
#   test has an annotation in its header:
#     Ordering: LABEL CALL CLASS     the statement calls CALL(), which is CLASS (for a
#                                    helper such as wq_has_sleeper(); for a primitive the
#                                    runner knows, CLASS must be its class, and the line
#                                    just picks it out of several)
#     Ordering: LABEL CALL LABEL2    the statement calls CALL(), ordered as the statement
#                                    at LMM(LABEL2) in the same File, which is classified
#                                    the same way (e.g. base_dispatch:B calls base_settle()
#                                    and the cmpxchg there is base_settle:B)
#   The statement must still contain "CALL(", so an annotation cannot outlive the call.
#   A tagged line of the test must hold exactly one classified primitive.
# A test whose weakened copies stay "Never" checks nothing; the runner fails it.
#
# Environment: HERD7 (a herd7 command; default: tools/litmus/herd7.sh fetches one),
# LKMM_DIR (default: tools/memory-model of the cached kernel source), TEMPO_CACHE.
# Output: one "ok"/"not ok" line per check; the last line is "N passed, N failed".

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${TEMPO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tempo}
herd=$("$here/herd7.sh")
lkmm=${LKMM_DIR:-}
if [ -z "$lkmm" ]; then
	lkmm=$(ls -d "$cache"/src-6.1-*/linux-source-6.1/tools/memory-model 2>/dev/null | tail -n1)
fi
[ -f "$lkmm/linux-kernel.cfg" ] || {
	echo "litmus: no tools/memory-model (run 'make kernel' to extract the source, or set LKMM_DIR)"
	echo "0 passed, 1 failed"
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; }

# herd7's verdict for one file: Never, Sometimes or Always.
verdict() {
	(cd "$lkmm" && timeout 120 $herd -conf linux-kernel.cfg "$1") >"$tmp/out" 2>&1 || true
	sed -n 's/^Observation [^ ]* \([A-Za-z]*\) .*/\1/p' "$tmp/out"
}

weaken() {	# weaken FILE LABELS(+-separated) > OUT
	LABELS=$2 perl -pe '
		BEGIN { @l = split /\+/, $ENV{LABELS}; }
		my $hit = 0;
		for my $l (@l) { $hit = 1 if index($_, "LMM($l)") >= 0; }
		if ($hit) {
			s/\b(cmpxchg|xchg)(_acquire|_release)?\(/$1_relaxed(/g;
			s/\batomic_(\w+?)(_acquire|_release)?\(/atomic_$1_relaxed(/g
				if !/atomic_\w+_relaxed\(/;
			s/\bsmp_load_acquire\((\w+)\)/READ_ONCE(*$1)/g;
			s/\bsmp_store_release\((\w+),/WRITE_ONCE(*$1,/g;
			s/\bsmp_mb\(\);//g;
		}' "$1"
}

# The ordering check (README item 4): is the statement each label of TEST names in the
# SRC files (paths under ROOT) at least as ordered as the test's line? Prints "ok TEXT" or
# "not ok TEXT" lines.
read -r -d '' orderings_pl <<'PERL' || true
use strict;
use warnings;

my ($test, $root, @srcs) = @ARGV;
my $srcname = join(' ', @srcs);

# The ordering a call gives, on the scale relaxed < acquire, release < full; undef when
# the name is not one of the primitives below.
sub prim_class {
	my ($f) = @_;
	return 'full' if $f eq 'smp_mb' || $f eq 'smp_store_mb';
	return 'acquire' if $f eq 'smp_load_acquire';
	return 'release' if $f eq 'smp_store_release';
	return 'relaxed' if $f eq 'READ_ONCE' || $f eq 'WRITE_ONCE';
	my $op = $f;
	my $atomic = $op =~ s/^atomic(?:64|_long)?_//;
	my $sfx = $op =~ s/_(acquire|release|relaxed)$// ? $1 : '';
	if ($atomic) {
		return $sfx || 'relaxed' if $op =~ /^(read|set)$/;
		return undef if $sfx eq '' && $op =~ /^(read|set)_/;
		# void RMWs give no ordering; value-returning RMWs without a suffix are full
		return $sfx ? undef : 'relaxed' if $op =~ /^(inc|dec|add|sub|and|or|xor|andnot)$/;
		return $sfx || 'full'
			if $op =~ /^(xchg|cmpxchg|try_cmpxchg|fetch_\w+|\w+_return|\w+_and_test|add_negative|add_unless|fetch_add_unless|inc_not_zero|inc_unless_negative|dec_unless_positive|dec_if_positive)$/;
		return undef;
	}
	return $sfx || 'full' if $op =~ /^(xchg|cmpxchg|try_cmpxchg)(64|128)?$/;
	return undef;
}

# Every call in C text that looks like a barrier or an atomic: [name, class or undef].
sub prims {
	my ($s) = @_;
	$s =~ s{/\*.*?\*/}{ }gs;
	$s =~ s{//.*}{}g;
	my @p;
	while ($s =~ /\b(smp_\w+|READ_ONCE|WRITE_ONCE|atomic(?:64|_long)?_\w+|(?:try_)?cmpxchg\w*|xchg\w*)\s*\(/g) {
		push @p, [$1, prim_class($1)];
	}
	return @p;
}

sub geq {
	my ($a, $b) = @_;
	return $a eq $b || $a eq 'full' || $b eq 'relaxed';
}

sub oneline { my $s = shift; $s =~ s/\s+/ /g; $s =~ s/^ | $//g; return $s; }

# The test: the claim of each tagged line, and the " * Ordering:" annotations.
open(my $th, '<', $test) or die "$test: $!";
my @tl = <$th>;
close($th);
my (%claim, @order, %ann, @errs, @oks);
for my $l (@tl) {
	if ($l =~ /^ \* Ordering:\s*(\S+)\s+(\w+)\s+(\S+)\s*$/) {
		$ann{$1} = [$2, $3];
		next;
	}
	if ($l =~ /^ \* Ordering:/) {
		push @errs, "bad ' * Ordering:' line (want LABEL CALL CLASS-or-LABEL): " . oneline($l);
		next;
	}
	next unless $l =~ m{^(.*?)//.*\bLMM\(([a-z_]+:[A-Z])\)};
	my ($code, $lab) = ($1, $2);
	my @p = prims($code);
	if (@p != 1 || !defined $p[0][1]) {
		push @errs, "the test's LMM($lab) line cannot be classified: " . oneline($code);
		next;
	}
	push @order, $lab unless exists $claim{$lab};
	if (exists $claim{$lab} && $claim{$lab} ne $p[0][1]) {
		push @errs, "the test tags LMM($lab) on lines that claim $claim{$lab} and $p[0][1]";
		next;
	}
	$claim{$lab} = $p[0][1];
}
for my $lab (sort keys %ann) {
	push @errs, "' * Ordering:' names $lab, which no line of the test is tagged with"
		unless exists $claim{$lab};
}

# The source: where each label is set, and the statement that carries it.
# The files one after the other; @where names each line's file and line for the messages.
my (@sl, @where);
for my $f (@srcs) {
	open(my $sh, '<', "$root/$f") or die "$f: $!";
	my @l = <$sh>;
	close($sh);
	push @where, map { @srcs > 1 ? "$f line $_" : "line $_" } 1 .. @l;
	push @sl, @l;
}

# [line number, statement text] for each place LMM(label) labels code: the comment
# starts with it ("/* LMM(l)" or a " * LMM(l)" line); a mention further into a comment
# is a reference, not a label.
sub sites {
	my ($lab) = @_;
	my @r;
	for my $i (0 .. $#sl) {
		my $l = $sl[$i];
		next unless $l =~ m{(?:/\*+|^\s*\*)\s*LMM\(\Q$lab\E\)};
		my $at = $-[0];
		my $pre = substr($l, 0, $at);
		if ($pre =~ /\S/ && $pre !~ m{^\s*(/\*|\*)}) {	# code /* LMM(l) */
			push @r, [$i + 1, $pre];
			next;
		}
		# the end of the label's comment; the statement starts after it
		my $j = $i;
		my $rest = substr($l, $at);
		my $text = '';
		while ($j <= $#sl) {
			if ($rest =~ m{\*/(.*)$}s) {
				$text = $1;
				last;
			}
			$rest = $sl[++$j] // '';
		}
		my $k = $j + 1;
		my $stmt = '';
		my $first = 0;
		while (1) {
			my $t = $text;
			$t =~ s{/\*.*?\*/}{ }gs;
			if ($t =~ m{/\*}) {	# a comment opens: skip to its end
				$text = $t;
				until ($text =~ m{\*/}) {
					last if $k > $#sl;
					$text .= $sl[$k++];
				}
				next if $text =~ m{\*/};
				last;
			}
			$t =~ s{//.*}{};
			if ($t =~ /\S/) {
				$stmt .= $t;
				$first ||= $k;
				my $depth = ($stmt =~ tr/(//) - ($stmt =~ tr/)//);
				last if $depth <= 0;
			}
			last if $k > $#sl || ($first && $k - $first > 8);
			$text = $sl[$k++];
		}
		push @r, [($first || $k), $stmt];
	}
	return @r;
}

# The class of the statement at a site: (class, detail) or (undef, why).
sub site_class {
	my ($lab, $site, $depth) = @_;
	my ($n, $stmt) = @$site;
	my $ln = $where[$n - 1] // "line $n";
	my @p = prims($stmt);
	if (my $a = $ann{$lab}) {
		my ($call, $to) = @$a;
		return (undef, "$ln does not call $call(), which ' * Ordering:' names")
			unless $stmt =~ /\b\Q$call\E\s*\(/;
		# a primitive the runner knows: the line only picks it out of several
		if (defined(my $pc = prim_class($call))) {
			return (undef, "' * Ordering:' says $call() is $to; it is $pc") if $to ne $pc;
			return ($pc, "$ln: $call()");
		}
		return ($to, "$ln: $call() is $to by ' * Ordering:'")
			if $to =~ /^(relaxed|acquire|release|full)$/;
		return (undef, "' * Ordering:' for $lab: '$to' is neither a class nor a label")
			unless $to =~ /^[a-z_]+:[A-Z]$/;
		return (undef, "' * Ordering:' for $lab: $to leads too far") if $depth > 3;
		my @s = sites($to);
		return (undef, "' * Ordering:' for $lab: no LMM($to) labels code in $srcname") unless @s;
		my ($weak, $why);
		for my $s (@s) {
			my ($c, $d) = site_class($to, $s, $depth + 1);
			return (undef, "via LMM($to): $d") unless defined $c;
			$weak = $c if !defined $weak || !geq($c, $weak);
			$why = $d;
		}
		return ($weak, "$ln: $call() is LMM($to), $why");
	}
	return (undef, "$ln has no barrier or atomic: " . oneline($stmt)) unless @p;
	my @u = grep { !defined $_->[1] } @p;
	return (undef, "$ln calls $u[0][0](), which the runner does not classify") if @u;
	return (undef, "$ln calls " . join(' and ', map { "$_->[0]()" } @p) . "; which one is meant?")
		if @p > 1;
	return ($p[0][1], "$ln: $p[0][0]");
}

my $hint = "; name the call with ' * Ordering: LABEL CALL CLASS-or-LABEL' in the test";
for my $lab (@order) {
	my $want = $claim{$lab};
	my @s = sites($lab);
	unless (@s) {
		push @errs, "source $srcname has LMM($lab) only inside a comment, not labelling code";
		next;
	}
	my $bad = 0;
	my $got;
	for my $s (@s) {
		my ($c, $d) = site_class($lab, $s, 0);
		if (!defined $c) {
			push @errs, "source $srcname LMM($lab) cannot be classified ($d)$hint";
			$bad = 1;
		} elsif (!geq($c, $want)) {
			push @errs, "source $srcname LMM($lab) is $c but the test claims $want ($d)";
			$bad = 1;
		} else {
			$got = $c;
		}
	}
	push @oks, "$lab $got>=$want" unless $bad;
}
print "not ok $_\n" for @errs;
print "ok $srcname orders as the test claims: " . join(', ', @oks) . "\n" unless @errs;
PERL
orderings() {	# orderings TEST.litmus ROOT SRC...
	perl -e "$orderings_pl" "$@"
}

tests=("$@")
[ "${#tests[@]}" -gt 0 ] || tests=("$here"/*.litmus)
for t in "${tests[@]}"; do
	t=$(realpath "$t")
	name=$(basename "$t" .litmus)
	want=$(sed -n 's/^ \* Result: *\([A-Za-z]*\).*/\1/p' "$t" | head -n1)
	weak=$(sed -n 's/^ \* Weaken: *//p' "$t" | head -n1)
	if [ -z "$want" ]; then
		notok "$name: no ' * Result:' line in its header"
		continue
	fi
	src=$(sed -n 's/^ \* File: *//p' "$t" | head -n1)
	if [ -z "$src" ]; then
		notok "$name: no ' * File:' line in its header"
	elif gone=$(for f in $src; do [ -f "$here/../../$f" ] || echo "$f"; done) && [ -n "$gone" ]; then
		echo "ok - $name: labels in $src # SKIP ${gone//$'\n'/ } not on this branch"
	else
		missing=$(grep -o 'LMM([a-z_]*:[A-Z])' "$t" | sort -u | while read -r l; do
			# shellcheck disable=SC2086 # $src: the test's files, one word each
			(cd "$here/../.." && grep -qF "$l" $src) || echo "$l"; done)
		if [ -n "$missing" ]; then
			notok "$name: not in $src: "$missing
		else
			ok "$name: every label is in $src"
			# shellcheck disable=SC2086 # $src: the test's files, one word each
			res=$(orderings "$t" "$here/../.." $src) || res=
			[ -n "$res" ] || res="not ok the ordering check (perl) did not run"
			while read -r v text; do
				if [ "$v" = ok ]; then
					ok "$name: $text"
				else
					notok "$name: ${text#ok }"
				fi
			done <<<"$res"
		fi
	fi
	got=$(verdict "$t")
	if [ "$got" = "$want" ]; then
		ok "$name: $got"
	else
		notok "$name: herd7 says '${got:-nothing}', expected $want"
		sed 's/^/#   /' "$tmp/out" | head -n 20
	fi
	[ "$want" = Never ] || continue
	if [ -z "$weak" ]; then
		notok "$name: no ' * Weaken:' line; nothing shows the test depends on a barrier"
		continue
	fi
	for w in $weak; do
		first=${w%%+*}
		grep -qF "LMM($first)" "$t" || { notok "$name: Weaken names $first, no line tagged LMM($first)"; continue; }
		weaken "$t" "$w" >"$tmp/$name.litmus"
		got=$(verdict "$tmp/$name.litmus")
		if [ -n "$got" ] && [ "$got" != Never ]; then
			ok "$name without $w: $got"
		else
			notok "$name without $w: herd7 says '${got:-nothing}'; the barrier is not what the result rests on"
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
