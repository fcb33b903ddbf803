# SPDX-License-Identifier: GPL-2.0
#
# `make bench`, included by the top-level Makefile: tempo against
# delayed_work, timer_list, hrtimer, padata, an ordered workqueue, a reorder
# buffer, java's DelayQueue design, timerfd, io_uring and POSIX timers, in one
# boot of the bench kernel (tools/vm/kernel/bench.config: no debug checks).
# Prints a table of ratios and writes build/bench/results.json; see
# tools/bench/README.md. Never part of `make check`.
#
#   make bench                      every tier, 5 repetitions (about 10 min in the VM)
#   make bench TEMPO_BENCH_QUICK=1  1K tier only (a smoke run)
#   make bench-kernel               build (or find) the bench kernel only
#   make bench-native               the same module and guest script in an SMP
#                                   User-Mode Linux 7.2 kernel (native instruction
#                                   costs), 3 boots; build/bench-native/results.json
#   make bench-native-kernel        build (or find) that UML kernel only
#   make bench-iso                  the isolation lane: two TCG boots, CPU 1 isolated
#                                   (kernel variant bench+nohz, built on demand) and
#                                   not; build/bench-iso/summary.txt

.PHONY: bench bench-kernel bench-native bench-native-kernel bench-iso

bench: deps
	@mkdir -p build
	@TEMPO_BENCH_REPS=$(or $(TEMPO_BENCH_REPS),5) TEMPO_BENCH_QUICK=$(or $(TEMPO_BENCH_QUICK),0) \
		tools/bench/run.sh

bench-kernel: deps
	@kdir=$$(tools/vm/kernel.sh bench) && echo "bench kernel: $$kdir"

bench-iso: deps
	@mkdir -p build
	@TEMPO_BENCH_REPS=$(or $(TEMPO_BENCH_REPS),3) tools/bench/iso.sh

bench-native:
	@mkdir -p build
	@TEMPO_BENCH_REPS=$(or $(TEMPO_BENCH_REPS),3) TEMPO_BENCH_BOOTS=$(or $(TEMPO_BENCH_BOOTS),3) \
		TEMPO_BENCH_QUICK=$(or $(TEMPO_BENCH_QUICK),0) tools/bench/native.sh

bench-native-kernel:
	@kdir=$$(tools/bench/uml/kernel.sh) && echo "UML kernel: $$kdir"
