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

.PHONY: bench bench-kernel

bench: deps
	@mkdir -p build
	@TEMPO_BENCH_REPS=$(or $(TEMPO_BENCH_REPS),5) TEMPO_BENCH_QUICK=$(or $(TEMPO_BENCH_QUICK),0) \
		tools/bench/run.sh

bench-kernel: deps
	@kdir=$$(tools/vm/kernel.sh bench) && echo "bench kernel: $$kdir"
