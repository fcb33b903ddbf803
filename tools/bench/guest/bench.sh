#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench` (tempo_mode=bench; /init has loaded tempo.ko).
# Loads tempo_bench.ko and runs every measurement, interleaving the systems
# (A B C A B C ...) and rotating which one goes first in each repetition.
# Every result line goes to the console and, at the end, to /dev/ttyS1 (the
# host's ktap.raw), prefixed "BENCH rep=R". A failed measurement prints
# "BENCH-ERR".
#
# Kernel command line: tempo_bench_reps=N (default 5; the 1M cancel tier runs
# max(2, N-2) times), tempo_bench_quick=1 (smallest tiers only, for a smoke run),
# tempo_bench_only=a,b (only these sections: cancel postpone xcancel xpostpone hirq
# idle coalesce burst spread order uorder dq dq0 parts ubench late; dq includes dq0), tempo_bench_sys=a,b
# (only these systems,
# e.g. for a profile of one of them), tempo_bench_extra=timer64 (controls added to
# the cancel, postpone, xcancel and xpostpone lanes and hirq: timer64 is a timer_list padded to
# tempo_timer's 64 bytes, timer56 and timer48 to 56 and 48; lazyc and lazyp, the
# floor of a lazy timer, always run),
# tempo_bench_tiers=65536 (only these numbers of outstanding timers).
# The isolation lane (iso) and latepath run only when tempo_bench_only names them;
# tempo_bench_iso=1 says the boot isolates CPU 1 (nohz_full=1): the lane then
# fails unless /sys/devices/system/cpu/nohz_full is "1". tempo_bench_trace=1:
# trace latepath's runs (below).

reps=5
quick=0
only=
sys_only=
extra=
tiers_only=
iso_expect=0
trace=0
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	tempo_bench_reps=*) reps=${arg#tempo_bench_reps=} ;;
	tempo_bench_quick=*) quick=${arg#tempo_bench_quick=} ;;
	tempo_bench_only=*) only=${arg#tempo_bench_only=} ;;
	tempo_bench_sys=*) sys_only=${arg#tempo_bench_sys=} ;;
	tempo_bench_extra=*) extra=$(echo "${arg#tempo_bench_extra=}" | tr , ' ') ;;
	tempo_bench_tiers=*) tiers_only=$(echo "${arg#tempo_bench_tiers=}" | tr , ' ') ;;
	tempo_bench_iso=*) iso_expect=${arg#tempo_bench_iso=} ;;
	tempo_bench_trace=*) trace=${arg#tempo_bench_trace=} ;;
	esac
done

want() { [ -z "$only" ] || case ",$only," in *",$1,"*) true ;; *) false ;; esac; }
named() { case ",$only," in *",$1,"*) true ;; *) false ;; esac; }

out=/tmp/bench.out
: >$out
B=/sys/kernel/debug/tempo_bench/run

echo "BENCH-INFO cpus=$(grep -c ^processor /proc/cpuinfo) clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) reps=$reps" | tee -a $out
insmod /tempo/bench/tempo_bench.ko || { echo "tempo-vm: FAIL insmod tempo_bench.ko"; exit 1; }
# where the modules' code is, for a host-side profiler (tools/bench/uml/perf-syms.py)
echo "BENCH-INFO tempo_text=$(cat /sys/module/tempo/sections/.text 2>/dev/null)" \
	"bench_text=$(cat /sys/module/tempo_bench/sections/.text 2>/dev/null)" | tee -a $out

# rotate "a b c" by $1 positions (and keep only tempo_bench_sys's systems)
rot() {
	local k=$1 i s
	shift
	i=0
	while [ $i -lt $((k % $#)) ]; do
		set -- "$@" "$1"
		shift
		i=$((i + 1))
	done
	for s in "$@"; do
		[ -z "$sys_only" ] || case ",$sys_only," in *",$s,"*) ;; *) continue ;; esac
		echo "$s"
	done
}

kb() {	# kernel measurement: kb CMD SYS ARGS...
	local t0 t1
	t0=$(date +%s)
	if echo "$*" >$B 2>/dev/null; then
		sed "s/^/BENCH rep=$rep /" $B | tee -a $out
	else
		echo "BENCH-ERR rep=$rep $* : $(cat $B 2>/dev/null)" | tee -a $out
	fi
	t1=$(date +%s)
	[ $((t1 - t0)) -gt 60 ] && echo "bench: '$*' took $((t1 - t0)) s"
}

# CPU 0's wheel expiries and work items (tempo's wheel stats) and its local
# timer interrupts (/proc/interrupts LOC): "expiries dispatches loc".
idle_snap() {
	awk '$1 == "0" && NF >= 12 { e = $9; d = $10 } END { printf "%d %d ", e, d }' \
		/sys/kernel/debug/tempo/wheel/stats
	awk '$1 == "LOC:" { l = $2 } END { printf "%d\n", l }' /proc/interrupts
}
idle_s=5

# Every CPU's wheel expiries (tempo's wheel stats) and local timer interrupts
# (/proc/interrupts LOC), summed: "expiries loc".
all_snap() {
	awk '$1 ~ /^[0-9]+$/ && NF >= 13 { e += $9 } END { printf "%d ", e }' \
		/sys/kernel/debug/tempo/wheel/stats
	awk '$1 == "LOC:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) l += $i }
	     END { printf "%d\n", l }' /proc/interrupts
}

# For CPUs 0 and 1: local timer interrupts, function-call IPIs and reschedule
# IPIs (/proc/interrupts LOC, CAL, RES), then tempo's wheel expiries (hrtimer
# runs), work items and kicks sent (wheel stats): 12 numbers, CPU 0's first.
iso_snap() {
	awk '$1 == "LOC:" { l0 = $2; l1 = $3 } $1 == "CAL:" { c0 = $2; c1 = $3 }
	     $1 == "RES:" { r0 = $2; r1 = $3 }
	     END { printf "%d %d %d %d %d %d ", l0, l1, c0, c1, r0, r1 }' /proc/interrupts
	awk '$1 == "0" && NF >= 13 { e0 = $9; d0 = $10; k0 = $7 }
	     $1 == "1" && NF >= 13 { e1 = $9; d1 = $10; k1 = $7 }
	     END { printf "%d %d %d %d %d %d\n", e0, e1, d0, d1, k0, k1 }' \
		/sys/kernel/debug/tempo/wheel/stats
}

uo() {	# ordered pipeline from userspace: uo SYS SIZE
	/tempo/bench/uorder "$1" "$2" >/tmp/uo.out 2>/tmp/uo.err
	case $? in
	0) sed "s/^/BENCH rep=$rep /" /tmp/uo.out | tee -a $out ;;
	77) echo "BENCH-SKIP rep=$rep uorder $* : $(cat /tmp/uo.err)" | tee -a $out ;;
	*) echo "BENCH-ERR rep=$rep uorder $* : $(cat /tmp/uo.err)" | tee -a $out ;;
	esac
}

ub() {	# userspace measurement: ub MODE SYS
	/tempo/bench/ubench "$1" "$2" >/tmp/ub.out 2>/tmp/ub.err
	case $? in
	0) sed "s/^/BENCH rep=$rep /" /tmp/ub.out | tee -a $out ;;
	77) echo "BENCH-SKIP rep=$rep ubench $* : $(cat /tmp/ub.err)" | tee -a $out ;;
	*) echo "BENCH-ERR rep=$rep ubench $* : $(cat /tmp/ub.err)" | tee -a $out ;;
	esac
}

ul() {	# userspace lateness: ul SYSTEMS CASE ARGS... (tools/bench/ulate.c)
	/tempo/bench/ulate "$@" >/tmp/ul.out 2>/tmp/ul.err
	case $? in
	0) sed "s/^/BENCH rep=$rep /" /tmp/ul.out | tee -a $out ;;
	77) echo "BENCH-SKIP rep=$rep ulate $* : $(cat /tmp/ul.err)" | tee -a $out ;;
	*) echo "BENCH-ERR rep=$rep ulate $* : $(cat /tmp/ul.err)" | tee -a $out ;;
	esac
}

# Every CPU's local timer, reschedule and function-call interrupts (LOC, RES,
# CAL), tempo's wheel expiries, then its callbacks' lateness histogram (wheel
# stats, late_us_below), summed over the CPUs: one line of numbers.
path_snap() {
	awk '$1 == "LOC:" || $1 == "RES:" || $1 == "CAL:" {
		s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; v[$1] = s }
	     END { printf "%d %d %d ", v["LOC:"], v["RES:"], v["CAL:"] }' /proc/interrupts
	awk '$1 ~ /^[0-9]+$/ && NF >= 13 { e += $9 }
	     $1 == "late_us_below" { h = 1; next }
	     h && NF == 2 { hist = hist " " $2 }
	     END { printf "%d%s\n", e, hist }' /sys/kernel/debug/tempo/wheel/stats
}

# With tempo_bench_trace=1 and a kernel with tracing (KERNEL=6.12
# TEMPO_BENCH_KVARIANT=tempo+trace: a debug kernel, its timings are not the
# bench's), each latepath run is traced on CLOCK_MONOTONIC: hrtimer starts,
# expiries and their callbacks' returns, tempo's callbacks, the reader's
# wake-ups and switches, reschedule IPIs and timer interrupts, as
# "TRACE <run>: <line>" lines.
T=/sys/kernel/tracing
trace_start() {
	[ "$trace" = 1 ] || return 0
	[ -e $T/trace ] || mount -t tracefs nodev $T 2>/dev/null
	[ -e $T/trace ] || T=/sys/kernel/debug/tracing
	[ -e $T/trace ] || { echo "BENCH-INFO trace: no tracefs"; trace=0; return 0; }
	echo 0 >$T/tracing_on
	echo 8192 >$T/buffer_size_kb
	echo mono >$T/trace_clock	# CLOCK_MONOTONIC: the expiries' own clock
	: >$T/set_event
	for e in timer:hrtimer_start timer:hrtimer_expire_entry timer:hrtimer_expire_exit \
		tempo:tempo_timer_fire \
		sched:sched_waking sched:sched_switch irq_vectors:reschedule_entry \
		irq_vectors:local_timer_entry; do
		echo "$e" >>$T/set_event 2>/dev/null
	done
	echo 'comm == "ulate"' >$T/events/sched/sched_waking/filter
	echo 'prev_comm == "ulate" || next_comm == "ulate"' >$T/events/sched/sched_switch/filter
	: >$T/trace
	echo 1 >$T/tracing_on
}
trace_stop() {
	[ "$trace" = 1 ] || return 0
	echo 0 >$T/tracing_on
	grep -v '^#' $T/trace | sed "s/^/TRACE $1: /" >>$out
}

# Where a reader's lateness goes (section latepath, only when named): one
# system of ulate's "one" case alone, and the interrupts and wheel work of
# its run, per run: latepath SYSTEM DELAY_US MODE N.
latepath() {
	local a b
	trace_start
	a=$(path_snap)
	ul "$1" one "$2" "$3" "$4"
	b=$(path_snap)
	trace_stop "$1.$2.$3.$rep"
	echo "$a $b" | awk -v rep=$rep -v s=$1 -v d=$2 -v m=$3 -v n=$4 '{
		k = NF / 2
		printf "BENCH-INFO rep=%s latepath system=%s delay_us=%s mode=%s samples=%s", rep, s, d, m, n
		printf " loc=%d res=%d cal=%d wheel_expiries=%d late_us_below", $(k + 1) - $1,
			$(k + 2) - $2, $(k + 3) - $3, $(k + 4) - $4
		for (i = 5, below = 1; i < k; i++) {	# the buckets that counted
			if ($(k + i) - $i)
				printf " %d:%d", below, $(k + i) - $i
			below *= 2
		}
		if ($NF - $k)
			printf " inf:%d", $NF - $k
		printf "\n"
	}' | tee -a $out
}

if [ "$quick" = 1 ]; then
	tiers="1024"
else
	tiers="1024 65536 1048576"
fi
[ -z "$tiers_only" ] || tiers=$tiers_only
if named iso; then
	nohz=$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)
	isolated=no
	[ "$nohz" = 1 ] && isolated=yes
	echo "BENCH-INFO nohz_full=${nohz:-absent} isolated=$isolated" | tee -a $out
	[ "$iso_expect" = 1 ] && [ $isolated = no ] &&
		echo "tempo-vm: FAIL isolation: CPU 1 is not nohz_full (nohz_full='$nohz')"
fi
start=$(date +%s)
rep=1
while [ $rep -le $reps ]; do
	echo "bench: repetition $rep of $reps ($(($(date +%s) - start)) s so far)"
	for lane in cancel postpone; do
		want $lane && for n in $tiers; do
			if [ "$n" = 1048576 ] && [ $rep -gt $((reps > 4 ? reps - 2 : 2)) ]; then
				continue
			fi
			for cpus in 1 all; do
				# shellcheck disable=SC2086 # $extra: one word per system
				for s in $(rot $rep tempo tempo_coarse tempo_fine dwork timer hrtimer lazyc lazyp $extra); do
					kb $lane $s $n $cpus
				done
			done
		done
	done
	for lane in xcancel xpostpone; do
		want $lane && [ "$(grep -c ^processor /proc/cpuinfo)" -gt 1 ] && for n in $tiers; do
			[ "$n" = 1048576 ] && continue
			# shellcheck disable=SC2086 # $extra: one word per system
			for s in $(rot $rep tempo tempo_coarse dwork timer hrtimer lazyc lazyp $extra); do
				kb $lane $s $n
			done
		done
	done
	# shellcheck disable=SC2086 # $extra: one word per system
	want hirq && for s in $(rot $rep tempo tempo_coarse dwork timer hrtimer $extra); do
		kb hirq $s 65536
	done
	# What cancelled timers cost an idle CPU (the first): tempo's wheel
	# expiries and work items there, and its local timer interrupts, over
	# idle_s seconds after 4096 timers 1 to 4 s ahead were cancelled.
	want idle && for s in $(rot $rep none tempo timer tempo_defer tempo_defer_held); do
		[ $s = none ] || kb idle $s 4096
		a=$(idle_snap)
		sleep $idle_s
		b=$(idle_snap)
		[ $s = none ] || echo "idle_end $s 4096" >$B
		echo "$a $b" | awk -v rep=$rep -v s=$s -v secs=$idle_s '{
			h = "BENCH rep=" rep " name=idle system=" s " timers=4096 secs=" secs
			printf "%s stat=loc value=%.2f unit=irqs/s\n", h, ($6 - $3) / secs
			if (s ~ /^tempo/) {
				printf "%s stat=wheel_expiries value=%.2f unit=irqs/s\n", h, ($4 - $1) / secs
				printf "%s stat=work_items value=%.2f unit=runs/s\n", h, ($5 - $2) / secs
			}
		}' | tee -a $out
	done
	# Coalescing: 10,000 timers armed evenly over 1 s, 20 ms ahead, on the
	# first CPU, without and with 10 ms of slack, and timer_list with
	# round_jiffies(); FINE timers with 50 us of slack against hrtimers (as
	# 10,000 timerfds arm theirs): that CPU's wheel expiries (tempo) and
	# local timer interrupts (every system) in the run (about 1 s).
	want coalesce && for s in $(rot $rep tempo tempo_slack timer_round tempo_fine_slack hrtimer); do
		a=$(idle_snap)
		kb coalesce $s 10000
		b=$(idle_snap)
		echo "$a $b" | awk -v rep=$rep -v s=$s '{
			h = "BENCH rep=" rep " name=coalesce system=" s " timers=10000"
			if (s ~ /^tempo/)
				printf "%s stat=wheel_expiries value=%d unit=irqs/run\n", h, $4 - $1
			printf "%s stat=loc value=%d unit=irqs/run\n", h, $6 - $3
		}' | tee -a $out
	done
	# Isolation: a process pinned to CPU 1 arms 10,000 unpinned timers
	# through /dev/tempo over about a second and reads their records
	# (tools/bench/isoarm.c); "none" keeps the same schedule and arms
	# nothing. Each CPU's interrupts and tempo's wheel work over the run.
	named iso && for mode in sleep poll; do
		for s in $(rot $rep none tempo); do
			n=10000
			[ $s = tempo ] || n=0
			a=$(iso_snap)
			if /tempo/bench/isoarm 1 $n $mode >/tmp/iso.out 2>/tmp/iso.err; then
				b=$(iso_snap)
				sed "s/^/BENCH-INFO rep=$rep /" /tmp/iso.out | tee -a $out
			else
				echo "BENCH-ERR rep=$rep isoarm 1 $n $mode : $(cat /tmp/iso.err)" | tee -a $out
				continue
			fi
			echo "$a $b" | awk -v rep=$rep -v s=$s -v mode=$mode -v iso=$isolated '{
				split("loc cal res wheel_expiries work_items kicks", st, " ")
				for (c = 0; c < 2; c++)
					for (k = 1; k <= 6; k++)
						printf "BENCH rep=%s name=iso system=%s mode=%s isolated=%s cpu=%d stat=%s value=%d unit=count/run\n",
							rep, s, mode, iso, c, st[k], $(12 + 2 * k - 1 + c) - $(2 * k - 1 + c)
			}' | tee -a $out
		done
	done
	want burst && for s in $(rot $rep tempo dwork hrtimer); do
		kb burst $s 32768
	done
	# Spread: and every CPU's wheel expiries (tempo) and local timer
	# interrupts (every system) over the run, where lateness comes from.
	want spread && for s in $(rot $rep tempo tempo_fine tempo_fine_irq dwork hrtimer); do
		a=$(all_snap)
		kb spread $s 8192
		b=$(all_snap)
		echo "$a $b" | awk -v rep=$rep -v s=$s '{
			h = "BENCH rep=" rep " name=fire_lateness system=" s " timers=8192 cpus=all delay=2..102ms"
			if (s ~ /^tempo/)
				printf "%s stat=wheel_expiries value=%d unit=irqs/run\n", h, $3 - $1
			printf "%s stat=loc value=%d unit=irqs/run\n", h, $4 - $2
		}' | tee -a $out
	done
	want order && for s in $(rot $rep tempo tempo_spread tempo_inline padata owq rob cas); do
		kb order $s 32768
	done
	# /dev/tempo's ordered stream against the same pipeline in userspace
	# (tools/bench/uorder.c): items/s into a tmpfs file, in order
	want uorder && for size in 4 4096; do
		for s in $(rot $rep tempo user); do
			uo $s $size
		done
	done
	want dq && for s in $(rot $rep tempo java); do
		kb dq $s 16384
	done
	{ want dq || want dq0; } && for s in $(rot $rep tempo java); do
		kb dq0 $s 16384
	done
	want parts && kb parts - 0
	# Lateness of a reader's wake-up (tools/bench/ulate.c): the systems take
	# turns within each run, in this repetition's rotation; samples per run,
	# a quarter in a quick run.
	want late && {
		lsys=$(rot $rep tempo tempo_poll timerfd io_uring nanosleep | tr '\n' , | sed 's/,$//')
		div=1
		[ "$quick" = 1 ] && div=4
		for d in 200:400 1000:300 5000:150 20000:100; do
			for mode in random rearm; do
				ul "$lsys" one ${d%:*} $mode $((${d#*:} / div))
			done
		done
		ul "$lsys" spread 1000 100
		ul "$lsys" periodic 1000 $((1000 / div))
		ul "$lsys" periodic 20000 $((100 / div))
		ul "$(rot $rep tempo timerfd io_uring | tr '\n' , | sed 's/,$//')" wakeups 10000 1000 50
	}
	named latepath && for d in 5000:300 20000:150; do
		for mode in random rearm; do
			for s in $(rot $rep tempo timerfd); do
				latepath $s ${d%:*} $mode ${d#*:}
			done
		done
	done
	want ubench && for m in cancel expire; do
		for s in $(rot $rep tempo tempo_uring timerfd io_uring posix); do
			ub $m $s
		done
	done
	rep=$((rep + 1))
done
echo "bench: finished in $(($(date +%s) - start)) s"
# tempo's own counters (messages sent, kicks = IPIs) explain the cross-CPU lane
head -n 3 /sys/kernel/debug/tempo/wheel/stats 2>/dev/null | sed 's/^/bench: tempo wheel stats: /'

rmmod tempo_bench || echo "tempo-vm: FAIL rmmod tempo_bench"
stty -F /dev/ttyS1 raw -echo 2>/dev/null
cat $out >/dev/ttyS1
