/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated machine under the userspace build: CPUs, their interrupt
 * sources (hrtimers, IPIs, irq_work), their workqueues and the clock.
 *
 * Two modes:
 *  - threaded: one thread per simulated CPU (tempo_sim_init() with threaded set). A CPU's
 *    interrupts and work items run only on its thread: between the harness's
 *    operations, and whenever the thread re-enables interrupts. So "the owner
 *    CPU with interrupts off" excludes its own handlers exactly as on a real
 *    CPU, while the other CPUs run truly in parallel (what TSan watches).
 *  - deterministic: one thread plays every CPU (tempo_sim_set_cpu()); nothing
 *    is delivered until the harness says so (tempo_sim_run_irqs(),
 *    tempo_sim_run_works()), so a test chooses the exact interleaving, e.g.
 *    an IPI still in flight while the owner's work item claims a timer.
 */
#ifndef _TEMPO_SIM_H
#define _TEMPO_SIM_H

#include <linux/types.h>

void tempo_sim_init(unsigned int ncpus, bool threaded, bool fake_clock);
void tempo_sim_set_threaded(bool threaded);
void tempo_sim_set_cpu(unsigned int cpu);

/* Clock: the fake clock moves only when told; the real one is CLOCK_MONOTONIC. */
void tempo_sim_clock_set(u64 ns);
void tempo_sim_clock_advance(u64 ns);
u64 tempo_sim_real_ns(void);

/* Delivery, on the calling (simulated) CPU. Return: how many handlers ran. */
unsigned int tempo_sim_run_irqs(void);		/* IPIs, irq_works, due hrtimers */
unsigned int tempo_sim_run_csds(void);		/* IPIs only */
unsigned int tempo_sim_run_hrtimers(void);	/* due hrtimers only */
unsigned int tempo_sim_run_works(void);		/* work items, process context */
/* The work item this CPU is running, or NULL. */
struct work_struct *tempo_sim_current_work(void);
/* Deterministic mode: deliver everything on every CPU until quiet. */
unsigned int tempo_sim_run_all(void);
/* The earliest queued hrtimer of any CPU, or U64_MAX. */
u64 tempo_sim_next_hrtimer(void);
/* Pending deliveries of one CPU (for tests that hold an IPI in flight). */
unsigned int tempo_sim_pending_csds(unsigned int cpu);

/* CPU hotplug through the registered cpuhp callbacks (deterministic mode). */
void tempo_sim_cpu_down(unsigned int cpu);
void tempo_sim_cpu_up(unsigned int cpu);

/* Results */
extern unsigned long tempo_user_warnings;

#endif
