/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tempo_user.h: the one seam between tempo's kernel cores and userspace
 * (the role mm/vma_internal.h plays for tools/testing/vma). Every header
 * under tools/user-cores/include/linux/ includes this file and nothing else, so the
 * cores compile unchanged: the shims provide kernel APIs, never tempo logic.
 *
 * Atomics are GCC/Clang __atomic builtins so that ThreadSanitizer models
 * them: fully ordered kernel RMWs are __ATOMIC_SEQ_CST, a failed cmpxchg is
 * relaxed, _acquire/_release/_relaxed map one to one; smp_mb() is a seq_cst
 * fence; READ_ONCE/WRITE_ONCE are relaxed atomic accesses.
 *
 * CPUs are simulated (tools/user-cores/sim.c): each simulated CPU is one thread in
 * the threaded mode, or one context switched by the harness in the
 * deterministic mode. Interrupt handlers (hrtimer, IPI, irq_work) and work
 * items of CPU c run only on CPU c's thread, at the points where interrupts
 * are enabled, so "owner CPU with interrupts off" excludes them as in the
 * kernel.
 */
#ifndef _TEMPO_USER_H
#define _TEMPO_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#ifndef ERESTARTSYS
#define ERESTARTSYS 512
#endif

/* ---- types ---------------------------------------------------------- */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef u64 __u64;
typedef u32 __u32;
typedef s64 ktime_t;
typedef unsigned int gfp_t;
#ifndef U64_MAX
#define U64_MAX UINT64_MAX
#endif
#define S64_MAX INT64_MAX
#define S64_MIN INT64_MIN
#define U32_MAX UINT32_MAX
#define BITS_PER_LONG 64
#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL
#define GFP_KERNEL 0
#define GFP_ATOMIC 0
#define __GFP_ZERO 1
/* Memory cgroups and reclaim policy have no meaning here. */
#define GFP_KERNEL_ACCOUNT 0
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
#define __GFP_RETRY_MAYFAIL 0
#define __GFP_NOWARN 0

/* ---- compiler ------------------------------------------------------- */
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#undef __always_inline
#define __always_inline inline __attribute__((always_inline))
#define noinline __attribute__((noinline))
#define __cold __attribute__((__cold__))
#define __maybe_unused __attribute__((unused))
#define __must_check __attribute__((warn_unused_result))
#define __init
#define __exit
#define __read_mostly
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define ____cacheline_aligned_in_smp __attribute__((aligned(64)))
#define ____cacheline_aligned __attribute__((aligned(64)))
#define fallthrough __attribute__((fallthrough))
#define barrier() __asm__ __volatile__("" ::: "memory")
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define ____is_defined(arg1_or_junk) __take_second_arg(arg1_or_junk 1, 0)
#define ___is_defined(val) ____is_defined(__ARG_PLACEHOLDER_##val)
#define __is_defined(x) ___is_defined(x)
#define IS_ENABLED(option) __is_defined(option)
#define KBUILD_MODNAME "tempo"
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define BUILD_BUG_ON(c) _Static_assert(!(c), "BUILD_BUG_ON(" #c ")")
#define __stringify(x) #x
#ifndef static_assert
#define static_assert _Static_assert
#endif

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TEMPO_TSAN 1
#endif
#endif
#ifdef __SANITIZE_THREAD__
#define TEMPO_TSAN 1
#endif

/* ---- diagnostics: counted, so that a test fails on any WARN ---------- */
extern unsigned long tempo_user_warnings;
void tempo_user_warn(const char *file, int line, const char *cond);
#define WARN_ON(c) ({ bool __c = !!(c); if (unlikely(__c)) tempo_user_warn(__FILE__, __LINE__, #c); unlikely(__c); })
#define WARN_ON_ONCE(c) WARN_ON(c)
#define WARN(c, fmt, ...) ({ bool __c = !!(c); if (unlikely(__c)) { fprintf(stderr, fmt, ##__VA_ARGS__); tempo_user_warn(__FILE__, __LINE__, #c); } unlikely(__c); })
#define WARN_ONCE(c, fmt, ...) WARN(c, fmt, ##__VA_ARGS__)
#define BUG_ON(c) do { if (unlikely(c)) { tempo_user_warn(__FILE__, __LINE__, #c); abort(); } } while (0)
#define pr_err(fmt, ...) fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) do { } while (0)
#define pr_debug(fmt, ...) do { } while (0)
#define might_sleep() do { } while (0)
#define cond_resched() do { } while (0)

/* ---- min/max/bits ---------------------------------------------------- */
#define min(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); __a < __b ? __a : __b; })
#define max(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); __a > __b ? __a : __b; })
#define min_t(t, a, b) min((t)(a), (t)(b))
#define max_t(t, a, b) max((t)(a), (t)(b))
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi) clamp((t)(v), (t)(lo), (t)(hi))
#define BIT(n) (1UL << (n))
#define BIT_ULL(n) (1ULL << (n))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
static inline unsigned long __ffs64(u64 w) { return __builtin_ctzll(w); }
static inline unsigned long __ffs(unsigned long w) { return __builtin_ctzl(w); }
static inline int fls64(u64 x) { return x ? 64 - __builtin_clzll(x) : 0; }
static inline int fls(unsigned int x) { return x ? 32 - __builtin_clz(x) : 0; }
static inline u64 ror64(u64 w, unsigned int s) { s &= 63; return s ? (w >> s) | (w << (64 - s)) : w; }
static inline u64 rol64(u64 w, unsigned int s) { s &= 63; return s ? (w << s) | (w >> (64 - s)) : w; }
static inline bool is_power_of_2(unsigned long n) { return n && !(n & (n - 1)); }
static inline unsigned long roundup_pow_of_two(unsigned long n) { return n <= 1 ? 1 : 1UL << fls64(n - 1); }
#define ilog2(n) (fls64(n) - 1)

/* Bitmaps: include/linux/bitmap.h and find.h, what kmod/delayq.c uses. */
#define BITS_TO_LONGS(n)	DIV_ROUND_UP(n, BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]
static inline void __set_bit(unsigned long nr, unsigned long *map)
{ map[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG); }
static inline void __clear_bit(unsigned long nr, unsigned long *map)
{ map[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG)); }
/* The first set bit in [start, size), or size. */
static inline unsigned long find_next_bit(const unsigned long *map, unsigned long size,
					  unsigned long start)
{
	unsigned long w;

	if (start >= size)
		return size;
	w = map[start / BITS_PER_LONG] & (~0UL << (start % BITS_PER_LONG));
	for (;;) {
		if (w)
			return min(size, (start / BITS_PER_LONG) * BITS_PER_LONG + __ffs(w));
		start = (start / BITS_PER_LONG + 1) * BITS_PER_LONG;
		if (start >= size)
			return size;
		w = map[start / BITS_PER_LONG];
	}
}
#define find_first_bit(map, size) find_next_bit((map), (size), 0)
static inline u64 div_u64(u64 a, u32 b) { return a / b; }
static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * b) >> shift);
}
static inline s64 div_s64(s64 a, s32 b) { return a / b; }

/* ---- atomics (TSan-visible) ------------------------------------------ */
#define __ATOMIC_RLX __ATOMIC_RELAXED
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#if defined(__x86_64__) && !defined(TEMPO_TSAN)
/* arch/x86/include/asm/barrier.h: a locked add, cheaper than mfence. */
#define smp_mb() __asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc")
#else
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()

#ifdef TEMPO_TSAN
void AnnotateIgnoreReadsBegin(const char *f, int l);
void AnnotateIgnoreReadsEnd(const char *f, int l);
#define data_race(expr) ({ AnnotateIgnoreReadsBegin(__FILE__, __LINE__); \
	__typeof__(expr) __v = (expr); AnnotateIgnoreReadsEnd(__FILE__, __LINE__); __v; })
#else
#define data_race(expr) (expr)
#endif

#define __cmpxchg(p, o, n, s) ({ __typeof__(*(p)) __o = (o); \
	__atomic_compare_exchange_n((p), &__o, (n), false, s, __ATOMIC_RELAXED); __o; })
#define cmpxchg(p, o, n) __cmpxchg(p, o, n, __ATOMIC_SEQ_CST)
#define cmpxchg_acquire(p, o, n) __cmpxchg(p, o, n, __ATOMIC_ACQUIRE)
#define cmpxchg_release(p, o, n) __cmpxchg(p, o, n, __ATOMIC_RELEASE)
#define cmpxchg_relaxed(p, o, n) __cmpxchg(p, o, n, __ATOMIC_RELAXED)
#define __try_cmpxchg(p, po, n, s) \
	__atomic_compare_exchange_n((p), (po), (n), false, s, __ATOMIC_RELAXED)
#define try_cmpxchg(p, po, n) __try_cmpxchg(p, po, n, __ATOMIC_SEQ_CST)
#define try_cmpxchg_acquire(p, po, n) __try_cmpxchg(p, po, n, __ATOMIC_ACQUIRE)
#define try_cmpxchg_release(p, po, n) __try_cmpxchg(p, po, n, __ATOMIC_RELEASE)
#define try_cmpxchg_relaxed(p, po, n) __try_cmpxchg(p, po, n, __ATOMIC_RELAXED)
#define xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define xchg_acquire(p, v) __atomic_exchange_n((p), (v), __ATOMIC_ACQUIRE)
#define xchg_release(p, v) __atomic_exchange_n((p), (v), __ATOMIC_RELEASE)
#define xchg_relaxed(p, v) __atomic_exchange_n((p), (v), __ATOMIC_RELAXED)

#define TEMPO_ATOMIC_OPS(pfx, T, ctype)						\
typedef struct { ctype counter; } T;						\
static inline ctype pfx##_read(const T *v) { return __atomic_load_n(&v->counter, __ATOMIC_RELAXED); } \
static inline ctype pfx##_read_acquire(const T *v) { return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE); } \
static inline void pfx##_set(T *v, ctype i) { __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED); } \
static inline void pfx##_set_release(T *v, ctype i) { __atomic_store_n(&v->counter, i, __ATOMIC_RELEASE); } \
static inline bool pfx##_try_cmpxchg(T *v, ctype *o, ctype n) { return __try_cmpxchg(&v->counter, o, n, __ATOMIC_SEQ_CST); } \
static inline bool pfx##_try_cmpxchg_acquire(T *v, ctype *o, ctype n) { return __try_cmpxchg(&v->counter, o, n, __ATOMIC_ACQUIRE); } \
static inline bool pfx##_try_cmpxchg_release(T *v, ctype *o, ctype n) { return __try_cmpxchg(&v->counter, o, n, __ATOMIC_RELEASE); } \
static inline bool pfx##_try_cmpxchg_relaxed(T *v, ctype *o, ctype n) { return __try_cmpxchg(&v->counter, o, n, __ATOMIC_RELAXED); } \
static inline ctype pfx##_cmpxchg(T *v, ctype o, ctype n) { return __cmpxchg(&v->counter, o, n, __ATOMIC_SEQ_CST); } \
static inline ctype pfx##_cmpxchg_acquire(T *v, ctype o, ctype n) { return __cmpxchg(&v->counter, o, n, __ATOMIC_ACQUIRE); } \
static inline ctype pfx##_cmpxchg_release(T *v, ctype o, ctype n) { return __cmpxchg(&v->counter, o, n, __ATOMIC_RELEASE); } \
static inline ctype pfx##_cmpxchg_relaxed(T *v, ctype o, ctype n) { return __cmpxchg(&v->counter, o, n, __ATOMIC_RELAXED); } \
static inline ctype pfx##_xchg(T *v, ctype n) { return __atomic_exchange_n(&v->counter, n, __ATOMIC_SEQ_CST); } \
static inline ctype pfx##_xchg_acquire(T *v, ctype n) { return __atomic_exchange_n(&v->counter, n, __ATOMIC_ACQUIRE); } \
static inline ctype pfx##_xchg_release(T *v, ctype n) { return __atomic_exchange_n(&v->counter, n, __ATOMIC_RELEASE); } \
static inline ctype pfx##_xchg_relaxed(T *v, ctype n) { return __atomic_exchange_n(&v->counter, n, __ATOMIC_RELAXED); } \
static inline ctype pfx##_fetch_add(ctype i, T *v) { return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); } \
static inline ctype pfx##_fetch_add_relaxed(ctype i, T *v) { return __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); } \
static inline ctype pfx##_fetch_add_acquire(ctype i, T *v) { return __atomic_fetch_add(&v->counter, i, __ATOMIC_ACQUIRE); } \
static inline ctype pfx##_fetch_add_release(ctype i, T *v) { return __atomic_fetch_add(&v->counter, i, __ATOMIC_RELEASE); } \
static inline ctype pfx##_fetch_sub(ctype i, T *v) { return __atomic_fetch_sub(&v->counter, i, __ATOMIC_SEQ_CST); } \
static inline ctype pfx##_fetch_or(ctype i, T *v) { return __atomic_fetch_or(&v->counter, i, __ATOMIC_SEQ_CST); } \
static inline ctype pfx##_fetch_and(ctype i, T *v) { return __atomic_fetch_and(&v->counter, i, __ATOMIC_SEQ_CST); } \
static inline ctype pfx##_fetch_andnot(ctype i, T *v) { return __atomic_fetch_and(&v->counter, ~i, __ATOMIC_SEQ_CST); } \
static inline ctype pfx##_add_return(ctype i, T *v) { return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); } \
static inline ctype pfx##_add_return_relaxed(ctype i, T *v) { return __atomic_add_fetch(&v->counter, i, __ATOMIC_RELAXED); } \
static inline ctype pfx##_sub_return(ctype i, T *v) { return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); } \
static inline ctype pfx##_inc_return(T *v) { return pfx##_add_return(1, v); } \
static inline ctype pfx##_dec_return(T *v) { return pfx##_sub_return(1, v); } \
static inline bool pfx##_dec_and_test(T *v) { return pfx##_sub_return(1, v) == 0; } \
static inline void pfx##_add(ctype i, T *v) { __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); } \
static inline void pfx##_sub(ctype i, T *v) { __atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED); } \
static inline void pfx##_inc(T *v) { pfx##_add(1, v); } \
static inline void pfx##_dec(T *v) { pfx##_sub(1, v); } \
static inline void pfx##_or(ctype i, T *v) { __atomic_fetch_or(&v->counter, i, __ATOMIC_RELAXED); } \
static inline void pfx##_andnot(ctype i, T *v) { __atomic_fetch_and(&v->counter, ~i, __ATOMIC_RELAXED); }

TEMPO_ATOMIC_OPS(atomic, atomic_t, int)
TEMPO_ATOMIC_OPS(atomic_long, atomic_long_t, long)
TEMPO_ATOMIC_OPS(atomic64, atomic64_t, s64)
#define ATOMIC_INIT(i) { (i) }
#define ATOMIC64_INIT(i) { (i) }
#define ATOMIC_LONG_INIT(i) { (i) }

/* ---- lists ----------------------------------------------------------- */
struct list_head { struct list_head *next, *prev; };
#define LIST_HEAD_INIT(n) { &(n), &(n) }
#define LIST_HEAD(n) struct list_head n = LIST_HEAD_INIT(n)
static inline void INIT_LIST_HEAD(struct list_head *l) { WRITE_ONCE(l->next, l); l->prev = l; }
static inline void __list_add(struct list_head *n, struct list_head *p, struct list_head *nx)
{ nx->prev = n; n->next = nx; n->prev = p; WRITE_ONCE(p->next, n); }
static inline void list_add(struct list_head *n, struct list_head *h) { __list_add(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }
static inline void __list_del(struct list_head *p, struct list_head *n) { n->prev = p; WRITE_ONCE(p->next, n); }
static inline void list_del(struct list_head *e) { __list_del(e->prev, e->next); e->next = (void *)0x100; e->prev = (void *)0x122; }
static inline void list_del_init(struct list_head *e) { __list_del(e->prev, e->next); INIT_LIST_HEAD(e); }
static inline int list_empty(const struct list_head *h) { return READ_ONCE(h->next) == h; }
static inline void list_move(struct list_head *e, struct list_head *h) { __list_del(e->prev, e->next); list_add(e, h); }
static inline void list_move_tail(struct list_head *e, struct list_head *h) { __list_del(e->prev, e->next); list_add_tail(e, h); }
static inline void __list_splice(const struct list_head *l, struct list_head *p, struct list_head *n)
{ struct list_head *f = l->next, *la = l->prev; f->prev = p; p->next = f; la->next = n; n->prev = la; }
static inline void list_splice_tail(struct list_head *l, struct list_head *h)
{ if (!list_empty(l)) __list_splice(l, h->prev, h); }
static inline void list_splice_tail_init(struct list_head *l, struct list_head *h)
{ if (!list_empty(l)) { __list_splice(l, h->prev, h); INIT_LIST_HEAD(l); } }
static inline void list_splice_init(struct list_head *l, struct list_head *h)
{ if (!list_empty(l)) { __list_splice(l, h, h->next); INIT_LIST_HEAD(l); } }
#define list_entry(p, t, m) container_of(p, t, m)
#define list_first_entry(p, t, m) list_entry((p)->next, t, m)
#define list_first_entry_or_null(p, t, m) ({ struct list_head *__h = (p); \
	struct list_head *__n = READ_ONCE(__h->next); __n != __h ? list_entry(__n, t, m) : NULL; })
#define list_next_entry(pos, m) list_entry((pos)->m.next, __typeof__(*(pos)), m)
#define list_prev_entry(pos, m) list_entry((pos)->m.prev, __typeof__(*(pos)), m)
#define list_last_entry(p, t, m) list_entry((p)->prev, t, m)
#define list_entry_is_head(pos, h, m) (&(pos)->m == (h))
static inline int list_is_first(const struct list_head *l, const struct list_head *h) { return l->prev == h; }
#define list_for_each_entry(pos, h, m) \
	for (pos = list_first_entry(h, __typeof__(*pos), m); &pos->m != (h); pos = list_next_entry(pos, m))
static inline int list_is_last(const struct list_head *l, const struct list_head *h) { return l->next == h; }
#define list_for_each_entry_safe(pos, n, h, m) \
	for (pos = list_first_entry(h, __typeof__(*pos), m), n = list_next_entry(pos, m); \
	     &pos->m != (h); pos = n, n = list_next_entry(n, m))

struct llist_node { struct llist_node *next; };
struct llist_head { struct llist_node *first; };
#define llist_entry(p, t, m) container_of(p, t, m)
#define member_address_is_nonnull(p, m) ((uintptr_t)(p) + offsetof(__typeof__(*(p)), m) != 0)
#define llist_for_each_entry_safe(pos, n, node, m) \
	for (pos = llist_entry((node), __typeof__(*pos), m); member_address_is_nonnull(pos, m) && \
	     (n = llist_entry(pos->m.next, __typeof__(*n), m), true); pos = n)
#define llist_for_each_entry(pos, node, m) \
	for (pos = llist_entry((node), __typeof__(*pos), m); member_address_is_nonnull(pos, m); \
	     pos = llist_entry((pos)->m.next, __typeof__(*(pos)), m))
static inline void init_llist_head(struct llist_head *l) { l->first = NULL; }
static inline struct llist_node *llist_reverse_order(struct llist_node *h)
{ struct llist_node *n = NULL; while (h) { struct llist_node *t = h; h = h->next; t->next = n; n = t; } return n; }
static inline bool llist_add(struct llist_node *n, struct llist_head *h)
{ struct llist_node *f = READ_ONCE(h->first); do { n->next = f; } while (!try_cmpxchg(&h->first, &f, n)); return !f; }
static inline struct llist_node *llist_del_all(struct llist_head *h) { return xchg(&h->first, NULL); }
static inline bool llist_empty(const struct llist_head *h) { return READ_ONCE(h->first) == NULL; }

/* ---- simulated CPUs (tools/user-cores/sim.c) ------------------------------- */
#define NR_CPUS 64
#define CONFIG_NR_CPUS NR_CPUS
extern unsigned int nr_cpu_ids;
extern __thread int tempo_sim_this_cpu;
bool tempo_sim_cpu_online(unsigned int cpu);
#define smp_processor_id() ((unsigned int)tempo_sim_this_cpu)
#define raw_smp_processor_id() smp_processor_id()
#define get_cpu() smp_processor_id()
#define put_cpu() do { } while (0)
#define preempt_disable() do { } while (0)
#define preempt_enable() do { } while (0)
#define cpu_online(c) tempo_sim_cpu_online(c)
#define cpu_possible(c) ((c) < nr_cpu_ids)
#define for_each_possible_cpu(c) for ((c) = 0; (c) < nr_cpu_ids; (c)++)
#define for_each_online_cpu(c) for ((c) = 0; (c) < nr_cpu_ids; (c)++) if (!cpu_online(c)) {} else
struct cpumask { int dummy; };
extern const struct cpumask *const cpu_online_mask;
extern const struct cpumask *const cpu_possible_mask;
unsigned int cpumask_next(int n, const struct cpumask *m);
unsigned int cpumask_first(const struct cpumask *m);
unsigned int cpumask_any_but(const struct cpumask *m, unsigned int cpu);
#define cpus_read_lock() do { } while (0)
#define cpus_read_unlock() do { } while (0)

void tempo_sim_irq_disable(void);
void tempo_sim_irq_enable(void);
#define local_irq_save(f) do { (f) = 0; tempo_sim_irq_disable(); } while (0)
#define local_irq_restore(f) do { (void)(f); tempo_sim_irq_enable(); } while (0)
#define local_irq_disable() tempo_sim_irq_disable()
#define local_irq_enable() tempo_sim_irq_enable()
bool tempo_sim_irqs_disabled(void);
#define irqs_disabled() tempo_sim_irqs_disabled()

/*
 * per-CPU data: CPU c's copy of everything lives in unit c of one arena, at
 * the same offset in every unit (the kernel's scheme). alloc_percpu() returns
 * unit 0's copy; DEFINE_PER_CPU variables sit in section "tempo_pcpu" and are
 * relocated into the arena by tempo_pcpu_ptr().
 */
#define TEMPO_PCPU_UNIT (1UL << 22)
extern char *tempo_pcpu_arena;
extern char __start_tempo_pcpu[], __stop_tempo_pcpu[];
void *tempo_pcpu_alloc(size_t size, size_t align);
void tempo_pcpu_free(void *p);
static inline void *tempo_pcpu_ptr(void *p, unsigned int cpu)
{
	char *c = p;

	if (c >= __start_tempo_pcpu && c < __stop_tempo_pcpu)
		c = tempo_pcpu_arena + (c - __start_tempo_pcpu);
	return c + (size_t)cpu * TEMPO_PCPU_UNIT;
}
#define __percpu
#define alloc_percpu(type) ((type *)tempo_pcpu_alloc(sizeof(type), __alignof__(type)))
#define alloc_percpu_gfp(type, gfp) alloc_percpu(type)
#define free_percpu(p) tempo_pcpu_free(p)
#define per_cpu_ptr(p, cpu) ((__typeof__(p))tempo_pcpu_ptr((void *)(p), (cpu)))
#define this_cpu_ptr(p) per_cpu_ptr(p, smp_processor_id())
#define raw_cpu_ptr(p) this_cpu_ptr(p)
/*
 * this_cpu_*() are single unlocked instructions on the owner CPU (x86:
 * incq %gs:...), which remote readers sum with READ_ONCE(): a relaxed load
 * and store by the owner model that (no lock prefix, no tearing).
 */
#define this_cpu_add(x, v) do { __typeof__(&(x)) __p = this_cpu_ptr(&(x));	\
	__atomic_store_n(__p, __atomic_load_n(__p, __ATOMIC_RELAXED) + (v), __ATOMIC_RELAXED); } while (0)
#define this_cpu_inc(x) this_cpu_add(x, 1)
#define this_cpu_dec(x) this_cpu_add(x, -1)
#define this_cpu_read(x) __atomic_load_n(this_cpu_ptr(&(x)), __ATOMIC_RELAXED)
#define this_cpu_write(x, v) __atomic_store_n(this_cpu_ptr(&(x)), (v), __ATOMIC_RELAXED)
#define __this_cpu_inc(x) this_cpu_inc(x)
#define __this_cpu_read(x) this_cpu_read(x)
#define __this_cpu_write(x, v) this_cpu_write(x, v)
#define per_cpu(x, cpu) (*per_cpu_ptr(&(x), cpu))
#define DEFINE_PER_CPU(type, name) \
	__typeof__(type) name __attribute__((section("tempo_pcpu"), aligned(64), used))
#define DEFINE_PER_CPU_ALIGNED DEFINE_PER_CPU

/* ---- time ------------------------------------------------------------ */
u64 ktime_get_ns(void);
static inline ktime_t ktime_get(void) { return (ktime_t)ktime_get_ns(); }
static inline s64 ktime_to_ns(ktime_t k) { return k; }
static inline ktime_t ns_to_ktime(u64 ns) { return (ktime_t)ns; }
static inline ktime_t ktime_add_ns(ktime_t k, u64 ns) { return k + ns; }
static inline bool ktime_before(ktime_t a, ktime_t b) { return a < b; }
static inline bool ktime_after(ktime_t a, ktime_t b) { return a > b; }
static inline ktime_t ktime_sub(ktime_t a, ktime_t b) { return a - b; }
static inline ktime_t ktime_sub_ns(ktime_t k, u64 ns) { return k - ns; }
#define KTIME_MAX ((s64)~((u64)1 << 63))
#define HZ 250
#define TICK_NSEC 4000000ULL
/*
 * Jiffy j starts at CLOCK_MONOTONIC (j - INITIAL_JIFFIES) * TICK_NSEC, and
 * jiffies start 5 minutes before their 32-bit wrap, as the kernel's do: on
 * time, every tick (a late tick is a test's own doing).
 */
#define INITIAL_JIFFIES ((unsigned long)(unsigned int)(-300 * HZ))
#define jiffies ((unsigned long)(ktime_get_ns() / TICK_NSEC) + INITIAL_JIFFIES)
/*
 * The coarse clock is where timekeeping last accumulated a whole interval,
 * at the last tick: a jiffy long, but not in phase with the jiffies. Here
 * half a jiffy out of phase, so it lags CLOCK_MONOTONIC by half a jiffy to
 * a jiffy and a half (under User-Mode Linux 7.2, a busy loop found it more
 * than a jiffy behind in half the readings or more, jiffies being current).
 */
static inline u64 ktime_get_coarse_ns(void)
{
	u64 tick = ktime_get_ns() / TICK_NSEC * TICK_NSEC;

	return tick < TICK_NSEC / 2 ? 0 : tick - TICK_NSEC / 2;
}
static inline void cpu_relax(void) { }

/*
 * Clocks other than MONOTONIC (kmod/clock.c): REALTIME and BOOTTIME are
 * MONOTONIC plus a simulated offset. tempo_sim_clock_set_offset() moves one
 * as timekeeping does when a clock is set or the machine resumes, and tells
 * the pvclock_gtod notifier "was set" from the calling CPU, interrupts off.
 * No time namespace: a task's offsets are 0.
 */
#include <time.h>
enum tk_offsets { TK_OFFS_REAL, TK_OFFS_BOOT, TK_OFFS_TAI, TK_OFFS_MAX };
s64 tempo_sim_offset(enum tk_offsets offs);
void tempo_sim_clock_set_offset(enum tk_offsets offs, s64 off);
static inline ktime_t ktime_mono_to_any(ktime_t t, enum tk_offsets offs)
{ return t + tempo_sim_offset(offs); }
static inline ktime_t ktime_get_real(void) { return ktime_get() + tempo_sim_offset(TK_OFFS_REAL); }
static inline ktime_t ktime_get_boottime(void) { return ktime_get() + tempo_sim_offset(TK_OFFS_BOOT); }
struct timespec64 { s64 tv_sec; long tv_nsec; };
static inline s64 timespec64_to_ns(const struct timespec64 *ts)
{ return ts->tv_sec * (s64)NSEC_PER_SEC + ts->tv_nsec; }
static inline void timens_add_monotonic(struct timespec64 *ts) { (void)ts; }
static inline u64 timens_add_boottime_ns(u64 ns) { return ns; }

/* Notifier chains: a list under a mutex; the call runs each in turn. */
struct notifier_block {
	int (*notifier_call)(struct notifier_block *nb, unsigned long action, void *data);
	struct notifier_block *next;
};
#define NOTIFY_DONE 0
struct blocking_notifier_head { pthread_mutex_t m; struct notifier_block *head; };
#define BLOCKING_NOTIFIER_HEAD(n) struct blocking_notifier_head n = { PTHREAD_MUTEX_INITIALIZER, NULL }
int blocking_notifier_chain_register(struct blocking_notifier_head *h, struct notifier_block *nb);
int blocking_notifier_chain_unregister(struct blocking_notifier_head *h, struct notifier_block *nb);
int blocking_notifier_call_chain(struct blocking_notifier_head *h, unsigned long action, void *v);
int pvclock_gtod_register_notifier(struct notifier_block *nb);
int pvclock_gtod_unregister_notifier(struct notifier_block *nb);

/*
 * Alarms (kernel/time/alarmtimer.c) and the PM chain: the simulated machine
 * has no RTC to wake it, so no alarm queue is made (tempo_clock_alarm_ready()
 * is false), and it never suspends.
 */
enum alarmtimer_type { ALARM_REALTIME, ALARM_BOOTTIME };
#define ALARMTIMER_STATE_ENQUEUED	0x01
struct alarm {
	struct { ktime_t expires; } node;
	void (*function)(struct alarm *alarm, ktime_t now);
	enum alarmtimer_type type;
	int state;
};
static inline void alarm_init(struct alarm *a, enum alarmtimer_type type,
			      void (*fn)(struct alarm *, ktime_t))
{ a->type = type; a->function = fn; }
static inline bool alarm_start_timer(struct alarm *a, ktime_t expires, bool relative)
{ (void)a; (void)expires; (void)relative; return true; }
static inline int alarm_try_to_cancel(struct alarm *a) { (void)a; return 0; }
static inline int alarm_cancel(struct alarm *a) { (void)a; return 0; }
static inline void *alarmtimer_get_rtcdev(void) { return NULL; }
#define PM_SUSPEND_PREPARE	3
static inline int register_pm_notifier(struct notifier_block *nb) { (void)nb; return 0; }
static inline int unregister_pm_notifier(struct notifier_block *nb) { (void)nb; return 0; }

/* ---- memory ---------------------------------------------------------- */
/*
 * kmalloc() aligns power-of-two sizes naturally and everything to at least
 * ARCH_KMALLOC_MINALIGN; vmalloc() to a page. Cache-line alignment (64)
 * covers the ____cacheline_aligned structures the cores allocate.
 */
/*
 * Allocation-failure injection, as the kernel's fail-nth: when nonzero, the
 * calling thread's Nth allocation from here on (kmalloc family and
 * alloc_percpu) fails. tools/user-cores/fault_det_test.c.
 */
extern __thread unsigned int tempo_fail_nth;
static inline bool tempo_should_fail(void)
{
	return tempo_fail_nth && !--tempo_fail_nth;
}

static inline void *tempo_kalloc(size_t n, bool zero)
{
	void *p = NULL;

	if (tempo_should_fail())
		return NULL;

	if (posix_memalign(&p, 64, n ? n : 1))
		return NULL;
	if (zero)
		memset(p, 0, n);
	return p;
}
static inline void *kzalloc(size_t n, gfp_t f) { (void)f; return tempo_kalloc(n, true); }
static inline void *kmalloc(size_t n, gfp_t f) { return tempo_kalloc(n, f & __GFP_ZERO); }
static inline void *kcalloc(size_t c, size_t n, gfp_t f) { (void)f; return c && n > SIZE_MAX / c ? NULL : tempo_kalloc(c * n, true); }
static inline void *kmalloc_array(size_t c, size_t n, gfp_t f) { return kcalloc(c, n, f); }
#define kvzalloc kzalloc
#define kvcalloc kcalloc
#define kvmalloc_array kmalloc_array
static inline void kfree(const void *p) { free((void *)p); }
#define kvfree kfree
#define struct_size(p, m, n) (sizeof(*(p)) + sizeof((p)->m[0]) * (n))
#define ERR_PTR(e) ((void *)(long)(e))
#define PTR_ERR(p) ((long)(p))
#define IS_ERR(p) ((unsigned long)(p) >= (unsigned long)-4095)
#define IS_ERR_OR_NULL(p) (!(p) || IS_ERR(p))

/* ---- module, export, debugfs, seq_file: no-ops ------------------------ */
#define EXPORT_SYMBOL(s)
#define EXPORT_SYMBOL_GPL(s)
#define EXPORT_SYMBOL_NS_GPL(s, ns)
#define EXPORT_SYMBOL_IF_KUNIT(s)
#define VISIBLE_IF_KUNIT
#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_VERSION(x)
#define MODULE_PARM_DESC(a, b)
#define module_param(a, b, c)
#define THIS_MODULE NULL
struct module;
struct dentry;
struct inode;
struct file;
struct seq_file { FILE *f; };
#define seq_printf(m, fmt, ...) fprintf((m)->f, fmt, ##__VA_ARGS__)
#define seq_puts(m, s) fputs(s, (m)->f)
#define seq_putc(m, c) fputc(c, (m)->f)
struct file_operations { int dummy; };
#define DEFINE_SHOW_ATTRIBUTE(name) \
	static const struct file_operations name##_fops __maybe_unused = { 0 }; \
	static int (*const name##_show_ptr)(struct seq_file *, void *) __maybe_unused = name##_show
static inline struct dentry *debugfs_create_dir(const char *n, struct dentry *p) { (void)n; (void)p; return NULL; }
static inline struct dentry *debugfs_create_file(const char *n, unsigned int m, struct dentry *p,
	void *d, const struct file_operations *f) { (void)n; (void)m; (void)p; (void)d; (void)f; return NULL; }
static inline void debugfs_remove(struct dentry *d) { (void)d; }
#define debugfs_remove_recursive debugfs_remove

/* ---- hotplug ----------------------------------------------------------- */
enum cpuhp_state { CPUHP_INVALID = -1, CPUHP_AP_ONLINE_DYN = 100 };
int cpuhp_setup_state(enum cpuhp_state st, const char *name,
		      int (*online)(unsigned int), int (*offline)(unsigned int));
void cpuhp_remove_state_nocalls(enum cpuhp_state st);
void cpuhp_remove_state(enum cpuhp_state st);

/* ---- hrtimer, irq_work, IPIs ------------------------------------------- */
enum hrtimer_restart { HRTIMER_NORESTART, HRTIMER_RESTART };
enum hrtimer_mode { HRTIMER_MODE_ABS = 0, HRTIMER_MODE_ABS_PINNED = 0,
		   HRTIMER_MODE_ABS_PINNED_HARD = 0, HRTIMER_MODE_REL = 1 };
typedef int clockid_t_;
#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC 1
#endif
struct hrtimer {
	enum hrtimer_restart (*function)(struct hrtimer *);
	u64 expires;
	int cpu;		/* the simulated CPU it is queued on, -1 if not */
	bool queued;
	struct hrtimer *sim_next;
};
void hrtimer_init(struct hrtimer *t, int clock, enum hrtimer_mode mode);
static inline void hrtimer_setup(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *),
				 int clock, enum hrtimer_mode mode)
{
	hrtimer_init(t, clock, mode);
	t->function = fn;
}
void hrtimer_start(struct hrtimer *t, ktime_t when, enum hrtimer_mode mode);
int hrtimer_cancel(struct hrtimer *t);
static inline void hrtimer_set_expires(struct hrtimer *t, ktime_t when) { t->expires = when; }
/* Queued on a simulated CPU (a racy snapshot, as the kernel's is). */
static inline bool hrtimer_active(const struct hrtimer *t)
{
	return __atomic_load_n(&t->queued, __ATOMIC_RELAXED);
}

struct irq_work {
	void (*func)(struct irq_work *);
	atomic_t pending;
	struct irq_work *sim_next;
};
void init_irq_work(struct irq_work *w, void (*func)(struct irq_work *));
#define DEFINE_IRQ_WORK(n, f) struct irq_work n = { .func = (f) }
bool irq_work_queue(struct irq_work *w);
void irq_work_sync(struct irq_work *w);

/*
 * timer_list: queued on a simulated CPU, run by tempo_sim_run_irqs() when
 * the jiffies reach its expiry (softirq: interrupts on). The sim has no idle
 * state, so TIMER_DEFERRABLE changes nothing here.
 */
#define TIMER_DEFERRABLE	0x00080000
#define TIMER_PINNED		0x00100000
struct timer_list {
	void (*function)(struct timer_list *);
	unsigned long expires;
	unsigned int flags;
	int cpu;		/* the simulated CPU it is queued on */
	bool queued;
	unsigned long sim_clk;	/* its CPU's tl_clk when queued */
	struct timer_list *sim_next;
};
static inline void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *),
			       unsigned int flags)
{
	memset(t, 0, sizeof(*t));
	t->function = fn;
	t->flags = flags;
	t->cpu = -1;
}
#define timer_container_of(var, t, field) container_of(t, typeof(*(var)), field)
static inline bool timer_pending(const struct timer_list *t)
{
	return __atomic_load_n(&t->queued, __ATOMIC_RELAXED);
}
void add_timer_on(struct timer_list *t, int cpu);
int mod_timer(struct timer_list *t, unsigned long expires);
int timer_delete_sync(struct timer_list *t);
unsigned int tempo_sim_run_timer_lists(void);

typedef void (*smp_call_func_t)(void *info);
struct __call_single_data {
	smp_call_func_t func;
	void *info;
	atomic_t locked;
	bool sim_free;
	struct __call_single_data *sim_next;
};
typedef struct __call_single_data call_single_data_t;
#define INIT_CSD(c, f, i) do { (c)->func = (f); (c)->info = (i); atomic_set(&(c)->locked, 0); \
				 (c)->sim_free = false; } while (0)
int smp_call_function_single_async(int cpu, call_single_data_t *csd);
int smp_call_function_single(int cpu, smp_call_func_t func, void *info, int wait);
void on_each_cpu(smp_call_func_t f, void *info, int wait);

/* ---- workqueues ------------------------------------------------------- */
struct work_struct;
typedef void (*work_func_t)(struct work_struct *);
struct work_struct {
	work_func_t func;
	atomic_t pending;
	int cpu;
	struct work_struct *sim_next;
};
struct workqueue_struct { int dummy; };
#define WQ_HIGHPRI 1
#define WQ_UNBOUND 2
#define WQ_MEM_RECLAIM 4
#define WQ_CPU_INTENSIVE 8
#define WQ_PERCPU 256
#define INIT_WORK(w, f) do { (w)->func = (f); atomic_set(&(w)->pending, 0); (w)->cpu = -1; } while (0)
#define DECLARE_WORK(n, f) struct work_struct n = { .func = (f), .cpu = -1 }
#define WORK_CPU_UNBOUND (-1)
struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags, int max, ...);
void destroy_workqueue(struct workqueue_struct *wq);
bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *w);
static inline bool queue_work(struct workqueue_struct *wq, struct work_struct *w)
{ return queue_work_on(WORK_CPU_UNBOUND, wq, w); }
bool flush_work(struct work_struct *w);
bool cancel_work_sync(struct work_struct *w);
void flush_workqueue(struct workqueue_struct *wq);
extern struct workqueue_struct *system_wq;
static inline bool schedule_work(struct work_struct *w) { return queue_work(system_wq, w); }

/* ---- sleeping: wait_var_event (polled), tasks, wait queues, locks ------ */
void tempo_sim_wait_idle(void);		/* run own irqs (and works), then nap */
void tempo_sim_wake_all(void);
/* The wheel's wait_var_event(): sleepers poll, so wake_up_var() is a no-op. */
#define wait_var_event(var, cond) do { while (!(cond)) tempo_sim_wait_idle(); } while (0)
/* Polled too: @t is a number of polls here, not of jiffies. Return: 0 on timeout. */
#define wait_var_event_timeout(var, cond, t) ({					\
	long __left = (t) * 64 + 1;						\
	while (!(cond) && --__left)						\
		tempo_sim_wait_idle();						\
	__left;									\
})
#define wake_up_var(var) do { (void)(var); tempo_sim_wake_all(); } while (0)

#include <pthread.h>
/*
 * spinlock_t: a pthread mutex (TSan models it) plus its holder, so that
 * lockdep_assert_held() is checked. The _irq/_irqsave forms also disable
 * the simulated CPU's interrupts, as in the kernel.
 */
void *tempo_sim_self(void);
typedef struct { pthread_mutex_t m; void *owner; } spinlock_t;
#define __SPIN_LOCK_UNLOCKED(n) { PTHREAD_MUTEX_INITIALIZER, NULL }
#define DEFINE_SPINLOCK(n) spinlock_t n = __SPIN_LOCK_UNLOCKED(n)
static inline void spin_lock_init(spinlock_t *l) { pthread_mutex_init(&l->m, NULL); l->owner = NULL; }
static inline void spin_lock(spinlock_t *l) { pthread_mutex_lock(&l->m); WRITE_ONCE(l->owner, tempo_sim_self()); }
static inline void spin_unlock(spinlock_t *l) { WRITE_ONCE(l->owner, NULL); pthread_mutex_unlock(&l->m); }
#define spin_lock_irq(l) do { tempo_sim_irq_disable(); spin_lock(l); } while (0)
#define spin_unlock_irq(l) do { spin_unlock(l); tempo_sim_irq_enable(); } while (0)
#define spin_lock_irqsave(l, f) do { local_irq_save(f); spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f) do { spin_unlock(l); local_irq_restore(f); } while (0)
static inline bool spin_trylock(spinlock_t *l)
{
	if (pthread_mutex_trylock(&l->m))
		return false;
	WRITE_ONCE(l->owner, tempo_sim_self());
	return true;
}
#define spin_trylock_irqsave(l, f) ({ bool __t; local_irq_save(f); __t = spin_trylock(l);	\
	if (!__t) local_irq_restore(f); __t; })
#define spin_lock_bh spin_lock
#define spin_unlock_bh spin_unlock
#define lockdep_assert_held(l) WARN_ON(READ_ONCE((l)->owner) != tempo_sim_self())
#define lockdep_assert_irqs_disabled() WARN_ON(!irqs_disabled())

struct mutex { pthread_mutex_t m; };
#define __MUTEX_INITIALIZER(n) { PTHREAD_MUTEX_INITIALIZER }
#define DEFINE_MUTEX(n) struct mutex n = __MUTEX_INITIALIZER(n)
#define mutex_init(x) pthread_mutex_init(&(x)->m, NULL)
#define mutex_lock(x) pthread_mutex_lock(&(x)->m)
#define mutex_unlock(x) pthread_mutex_unlock(&(x)->m)
#define mutex_destroy(x) pthread_mutex_destroy(&(x)->m)
#define mutex_trylock(x) (pthread_mutex_trylock(&(x)->m) == 0)

/*
 * Tasks: each thread has one (current); work items run as their CPU's
 * kworker. state follows kernel/sched/core.c: set_current_state() is a
 * store + full barrier, a wake-up moves a task whose state matches the mode
 * to TASK_RUNNING (try_to_wake_up() returns whether it did), schedule()
 * returns once the task is running (or at once with a signal pending in
 * TASK_INTERRUPTIBLE). A sleeping simulated CPU goes on serving its own
 * interrupts and work items (tempo_sim_wait_idle()).
 */
#define TASK_RUNNING		0x0000
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define TASK_NORMAL		(TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)
#define TASK_KILLABLE		TASK_UNINTERRUPTIBLE
#define PF_KTHREAD		0x00200000
struct task_struct {
	unsigned int	__state;	/* atomic */
	unsigned int	flags;		/* PF_KTHREAD */
	bool		should_stop;	/* kthread_should_stop(), atomic */
	bool		sigpending;	/* signal_pending(), atomic */
	unsigned long	nr_sleeps;	/* schedule() calls that slept */
};
extern __thread struct task_struct *tempo_sim_current;
struct task_struct *tempo_sim_get_current(void);
#define current tempo_sim_get_current()
#define set_current_state(s) __atomic_store_n(&current->__state, (s), __ATOMIC_SEQ_CST)
#define __set_current_state(s) __atomic_store_n(&current->__state, (s), __ATOMIC_RELAXED)
static inline bool signal_pending(struct task_struct *p) { return __atomic_load_n(&p->sigpending, __ATOMIC_ACQUIRE); }
static inline bool signal_pending_state(unsigned int state, struct task_struct *p)
{ return (state & TASK_INTERRUPTIBLE) && signal_pending(p); }
static inline bool fatal_signal_pending(struct task_struct *p) { (void)p; return false; }
bool kthread_should_stop(void);
int wake_up_process(struct task_struct *p);
int try_to_wake_up(struct task_struct *p, unsigned int state, int wake_flags);
void schedule(void);
/* Sleep until woken or @timeout jiffies pass. Return: the jiffies left, 0 on timeout. */
long schedule_timeout(long timeout);
int schedule_hrtimeout(ktime_t *expires, enum hrtimer_mode mode);
/* Test control: make signal_pending() true / kthread_should_stop() true, and wake. */
void tempo_sim_signal(struct task_struct *p);
void tempo_sim_kthread_stop(struct task_struct *p);

/* Wait queues: include/linux/wait.h and kernel/sched/wait.c, faithfully. */
struct wait_queue_entry;
typedef int (*wait_queue_func_t)(struct wait_queue_entry *wq_entry, unsigned int mode,
				 int flags, void *key);
#define WQ_FLAG_EXCLUSIVE	0x01
#define WQ_FLAG_WOKEN		0x02
struct wait_queue_entry {
	unsigned int		flags;
	void			*private;
	wait_queue_func_t	func;
	struct list_head	entry;
};
typedef struct wait_queue_entry wait_queue_entry_t;
struct wait_queue_head {
	spinlock_t		lock;
	struct list_head	head;
};
typedef struct wait_queue_head wait_queue_head_t;
int default_wake_function(struct wait_queue_entry *e, unsigned int mode, int flags, void *key);
int autoremove_wake_function(struct wait_queue_entry *e, unsigned int mode, int flags, void *key);
#define __WAIT_QUEUE_HEAD_INITIALIZER(n) { __SPIN_LOCK_UNLOCKED(n.lock), { &(n).head, &(n).head } }
#define DECLARE_WAIT_QUEUE_HEAD(n) wait_queue_head_t n = __WAIT_QUEUE_HEAD_INITIALIZER(n)
static inline void init_waitqueue_head(wait_queue_head_t *w) { spin_lock_init(&w->lock); INIT_LIST_HEAD(&w->head); }
#define DEFINE_WAIT_FUNC(name, function) struct wait_queue_entry name = { \
	.private = current, .func = function, .entry = LIST_HEAD_INIT((name).entry) }
#define DEFINE_WAIT(name) DEFINE_WAIT_FUNC(name, autoremove_wake_function)
static inline void init_waitqueue_func_entry(struct wait_queue_entry *e, wait_queue_func_t func)
{ e->flags = 0; e->private = NULL; e->func = func; }
static inline void init_wait_entry(struct wait_queue_entry *e, int flags)
{ e->flags = flags; e->private = current; e->func = autoremove_wake_function; INIT_LIST_HEAD(&e->entry); }
static inline int waitqueue_active(struct wait_queue_head *w) { return !list_empty(&w->head); }
static inline bool wq_has_sleeper(struct wait_queue_head *w) { smp_mb(); return waitqueue_active(w); }
static inline void __add_wait_queue(struct wait_queue_head *w, struct wait_queue_entry *e) { list_add(&e->entry, &w->head); }
static inline void __add_wait_queue_entry_tail(struct wait_queue_head *w, struct wait_queue_entry *e) { list_add_tail(&e->entry, &w->head); }
static inline void __add_wait_queue_entry_tail_exclusive(struct wait_queue_head *w, struct wait_queue_entry *e)
{ e->flags |= WQ_FLAG_EXCLUSIVE; __add_wait_queue_entry_tail(w, e); }
static inline void __remove_wait_queue(struct wait_queue_head *w, struct wait_queue_entry *e) { (void)w; list_del(&e->entry); }
void add_wait_queue(struct wait_queue_head *w, struct wait_queue_entry *e);
void add_wait_queue_exclusive(struct wait_queue_head *w, struct wait_queue_entry *e);
void remove_wait_queue(struct wait_queue_head *w, struct wait_queue_entry *e);
void prepare_to_wait(struct wait_queue_head *w, struct wait_queue_entry *e, int state);
bool prepare_to_wait_exclusive(struct wait_queue_head *w, struct wait_queue_entry *e, int state);
long prepare_to_wait_event(struct wait_queue_head *w, struct wait_queue_entry *e, int state);
void finish_wait(struct wait_queue_head *w, struct wait_queue_entry *e);
int __wake_up(struct wait_queue_head *w, unsigned int mode, int nr_exclusive, void *key);
void __wake_up_locked_key(struct wait_queue_head *w, unsigned int mode, void *key);
void __wake_up_locked(struct wait_queue_head *w, unsigned int mode, int nr);
typedef unsigned int __poll_t;
#define poll_to_key(m) ((void *)(uintptr_t)(m))
#define key_to_poll(k) ((__poll_t)(uintptr_t)(k))
#define wake_up(x) __wake_up(x, TASK_NORMAL, 1, NULL)
#define wake_up_nr(x, nr) __wake_up(x, TASK_NORMAL, nr, NULL)
#define wake_up_all(x) __wake_up(x, TASK_NORMAL, 0, NULL)
#define wake_up_locked(x) __wake_up_locked((x), TASK_NORMAL, 1)
#define wake_up_all_locked(x) __wake_up_locked((x), TASK_NORMAL, 0)
#define wake_up_interruptible(x) __wake_up(x, TASK_INTERRUPTIBLE, 1, NULL)
#define wake_up_interruptible_all(x) __wake_up(x, TASK_INTERRUPTIBLE, 0, NULL)
#define wake_up_poll(x, m) __wake_up(x, TASK_NORMAL, 1, poll_to_key(m))
#define wake_up_locked_poll(x, m) __wake_up_locked_key((x), TASK_NORMAL, poll_to_key(m))
#define wake_up_interruptible_poll(x, m) __wake_up(x, TASK_INTERRUPTIBLE, 1, poll_to_key(m))

/* ___wait_event() of include/linux/wait.h (no goto: a flag instead). */
#define ___wait_event(wq_head, condition, state, exclusive, ret, cmd) ({	\
	struct wait_queue_entry __wq_entry;					\
	long __ret = ret, __int;						\
	bool __intr = false;							\
	init_wait_entry(&__wq_entry, exclusive ? WQ_FLAG_EXCLUSIVE : 0);	\
	for (;;) {								\
		__int = prepare_to_wait_event(&(wq_head), &__wq_entry, state);	\
		if (condition)							\
			break;							\
		if (((state) & TASK_INTERRUPTIBLE) && __int) {			\
			__ret = __int;						\
			__intr = true;						\
			break;							\
		}								\
		cmd;								\
	}									\
	if (!__intr)								\
		finish_wait(&(wq_head), &__wq_entry);				\
	__ret;									\
})
#define wait_event(wq, cond) do { if (!(cond)) \
	(void)___wait_event(wq, cond, TASK_UNINTERRUPTIBLE, 0, 0, schedule()); } while (0)
#define wait_event_cmd(wq, cond, cmd1, cmd2) do { if (!(cond)) \
	(void)___wait_event(wq, cond, TASK_UNINTERRUPTIBLE, 0, 0, cmd1; schedule(); cmd2); } while (0)
#define wait_event_interruptible(wq, cond) ({ long __r = 0; if (!(cond)) \
	__r = ___wait_event(wq, cond, TASK_INTERRUPTIBLE, 0, 0, schedule()); (int)__r; })
#define wait_event_interruptible_exclusive(wq, cond) ({ long __r = 0; if (!(cond)) \
	__r = ___wait_event(wq, cond, TASK_INTERRUPTIBLE, 1, 0, schedule()); (int)__r; })
#define wait_event_killable(wq, cond) ({ wait_event(wq, cond); 0; })
/* wait_event_interruptible_timeout() of include/linux/wait.h, with its ___wait_cond_timeout(). */
#define ___wait_cond_timeout(cond) ({ bool __cond = (cond); if (__cond && !__ret) __ret = 1; \
	__cond || !__ret; })
#define wait_event_interruptible_timeout(wq, cond, timeout) ({ long __ret = (timeout);	\
	if (!___wait_cond_timeout(cond))						\
		__ret = ___wait_event(wq, ___wait_cond_timeout(cond), TASK_INTERRUPTIBLE, 0,	\
				      timeout, __ret = schedule_timeout(__ret));	\
	__ret; })

#endif /* _TEMPO_USER_H */
