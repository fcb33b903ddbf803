# SPDX-License-Identifier: GPL-2.0
#
# tempo verification lanes (issue 8), included by the top-level Makefile.
#
#   make litmus        herd7 + LKMM on tools/litmus/*.litmus (no VM)
#   make check-kcsan   the KUnit suites and stress tests on the KCSAN kernel variant
#                      (tools/vm/kernel/kcsan.config); fails on a KCSAN report in tempo code
#   make check-fault   allocation-failure injection (failslab) + kmemleak on the KCSAN kernel
#   make check-fuzz    the /dev/tempo ioctl fuzzer on the KASAN kernel
#   make verify        all of the above

.PHONY: litmus check-kcsan check-fault check-fuzz verify

litmus:
	@tools/litmus/run.sh

verify: litmus check-kcsan check-fault check-fuzz
