/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tempo: the /dev/tempo userspace ABI.
 *
 * Each open file of /dev/tempo is an independent context holding timers, an
 * ordered stream and one event queue; close() cancels and frees all of it.
 * Nothing in one context can be seen or touched through another, and no
 * user can see another's activity (TEMPO_IOC_STATS: struct tempo_mod_stats).
 *
 * Timers. TEMPO_IOC_TIMER_ARM arms a batch of timers in one call; each timer
 * has a user cookie, a clock (see "Clocks"), a relative delay or an absolute
 * deadline (nanoseconds), and an optional period. The kernel returns an id
 * per timer.
 * TEMPO_IOC_TIMER_CANCEL cancels a batch by id or by cookie. Arming with
 * TEMPO_ARM_REARM moves an existing timer to a new deadline (and period).
 *
 * Events. read() returns whole struct tempo_event records: every record
 * ready at the call, as many as fit, whatever the queue did with them
 * before (a timer's expiry, an ordered completion, or a loss report). It blocks
 * (interruptibly) while none is ready, fails with EAGAIN under O_NONBLOCK and
 * with EINVAL when the buffer is smaller than one record. readv() and
 * io_uring's READ, READV and READ_FIXED read the same way: as many whole
 * records as the buffers' total length holds, a record possibly spread over
 * two iovecs, never a part of one. A record leaves the queue only once it is
 * in the caller's buffer: a buffer that faults part way ends the read at the
 * last whole record copied (EFAULT if none), and the rest stays queued. A
 * read never does anything else (no sink I/O). poll()/epoll report EPOLLIN
 * while a record is ready. With several readers each record goes to exactly
 * one of them, and one ready record wakes one blocked reader (exclusive
 * waits). The event queue is a delay queue: arming is put(), read() is
 * take(), cancelling is remove().
 *
 * Read order. The records one reader reads come in this order: first a
 * TEMPO_EV_LOST record, if one is pending; then the others by deadline, to
 * the tick (struct tempo_info.tick_ns): a record never follows one of a
 * later tick that was ready at the same time; within a tick, in any order.
 * An ordered record's deadline is its completion time, so ordered records
 * come in ticket order, interleaved with timer records by time. A record
 * that becomes ready after a reader took records of later ticks (a timer
 * armed with a deadline already past, or one whose deadline passed while
 * its own arm batch was still being applied) comes after them: order is
 * among the records that were ready together. With several readers each
 * takes its records in this order, but their reads interleave as they run.
 * The order is of one clock's records (see "Clocks"): those of BOOTTIME and
 * absolute REALTIME timers come among the MONOTONIC ones where their
 * clock's first ready deadline falls, converted to MONOTONIC when that
 * clock was last set, and a clock set or a resume may put them later.
 *
 * A timer is never reported before its deadline. A one-shot timer lives until
 * its event has been read (the record carries TEMPO_EVF_FINAL and the id is
 * released) or until it is cancelled: every armed timer ends up either read or
 * cancelled, never both, never neither. A periodic timer lives until it is
 * cancelled; while its record waits unread, further expirations are folded
 * into the record's overrun count rather than queued (the timer pauses after
 * one of them, and the read that takes the record counts the periods that
 * passed and resumes it on the original schedule), so a slow reader costs
 * neither memory nor CPU beyond one record and two expiries per timer.
 *
 * Ordered stream. TEMPO_IOC_ORDER_TICKET takes a ticket; any thread may later
 * TEMPO_IOC_ORDER_SUBMIT (ticket, cookie, data) or TEMPO_IOC_ORDER_TRASH the
 * ticket; TEMPO_IOC_ORDER_SKIP trashes every open ticket below a bound at
 * once. Completions are delivered strictly in ticket order: as
 * TEMPO_EV_ORDER records on read() (the data is freed at completion; the
 * record reports its length), or, once a sink file has been set with
 * TEMPO_IOC_ORDER_SINK, by writing each submission's data to the sink, in
 * ticket order. There is no writer thread: every byte is written by the
 * thread that makes one of two calls, inside that call, with that thread's
 * credentials, limits and signals, exactly as its own write(2) of the sink
 * would be (the sink's own O_NONBLOCK included):
 *  - a SUBMIT or TRASH whose ticket was the oldest unfinished one, or a SKIP
 *    that trashed tickets: the call completes a run of the sequence and
 *    writes up to 64 waiting completions (the fairness bound of the ordered
 *    scheduler), oldest first, so about what it completed;
 *  - TEMPO_IOC_ORDER_FLUSH, which writes every waiting completion (and
 *    TEMPO_IOC_ORDER_SINK, which flushes the old sink before it switches).
 * Nothing else writes: not read(), poll(), TEMPO_IOC_STATS, TICKET, io_uring,
 * nor close(). The rest of a streak longer than 64, which the scheduler
 * completes on its own workqueue, and data a sink refused with EAGAIN or a
 * signal interrupted, wait for the next such call: while any wait, poll()
 * reports EPOLLOUT and tempo_ctx_stats.sink_pending counts them. Call
 * TEMPO_IOC_ORDER_FLUSH before close(): completions still waiting when the
 * file is released are dropped, and counted in tempo_mod_stats.sink_dropped
 * (close() never waits for a sink, whoever holds the last reference).
 * Ordered records beyond the queue limit are dropped and reported by one
 * TEMPO_EV_LOST record carrying the number lost: never lost silently.
 *
 * Clocks. A timer keeps time in the clock it is armed with, and its
 * deadlines, its records' times and its query's deadline are that clock's:
 *  - CLOCK_MONOTONIC, the default. It stops while the machine is suspended:
 *    a deadline moves that much later in real time.
 *  - CLOCK_BOOTTIME (TEMPO_ARM_BOOTTIME) counts suspended time: a timer
 *    whose deadline passed while the machine slept fires right after resume.
 *    It does not wake the machine; with TEMPO_ARM_ALARM it does (see
 *    "Alarms").
 *  - CLOCK_REALTIME (TEMPO_ARM_REALTIME), the wall clock. An absolute
 *    deadline follows it: when the clock is set (clock_settime(),
 *    settimeofday(), adjtimex()'s ADJ_SETOFFSET, a leap second; a resume too,
 *    which moves it on by the time slept) a step back delays the timer and a
 *    step forward past its deadline fires it, and a record ready but not
 *    yet read when the clock is set back before its deadline waits for the
 *    clock to reach it again (a poll() may have reported it). A relative
 *    REALTIME timer expires when its delay has elapsed whatever the wall
 *    clock does (as POSIX timers and timerfd make it: a MONOTONIC timer),
 *    and reports its times as CLOCK_REALTIME reads them at the read or
 *    query.
 * A periodic timer's period runs in its clock; a REARM may change the clock.
 * TEMPO_ARM_CANCEL_ON_SET (absolute REALTIME timers only, timerfd's
 * TFD_TIMER_CANCEL_ON_SET): when the wall clock is set, resume included, the
 * timer ends, whatever its deadline, with one final record flagged
 * TEMPO_EVF_CLOCK_SET. Until that record is read, a query of the timer says
 * TEMPO_TIMER_CLOCK_SET, and a re-arm of it or the arm of a new
 * CANCEL_ON_SET timer of the file fails with ECANCELED and changes nothing
 * (as timerfd_settime() reports ECANCELED); a cancel works as for any timer,
 * withdrawing the record. Once the record is read or withdrawn the timer is
 * gone: its id gets ENOENT from every call, a re-arm included.
 *
 * Alarms (TEMPO_ARM_ALARM, feature TEMPO_FEAT_ALARM): a CLOCK_BOOTTIME or
 * CLOCK_REALTIME timer that also wakes the machine from suspend for its
 * deadline, as a timerfd of CLOCK_BOOTTIME_ALARM or CLOCK_REALTIME_ALARM
 * does: at suspend the kernel's alarm timers (alarmtimer) program the
 * real-time clock for the earliest alarm of the system, tempo's among them.
 *  - Who: the caller of the arm, or of a re-arm that names TEMPO_ARM_ALARM,
 *    needs CAP_WAKE_ALARM (in the initial user namespace, as
 *    timerfd_settime() asks): else the whole batch fails with EPERM and
 *    nothing changes. It is the caller's capability, not the opener's: a
 *    file passed to a process without it arms no alarm. A cancel, and a
 *    re-arm without the flag, need nothing.
 *  - Where: only on a machine with an RTC that the kernel can wake it with
 *    (TEMPO_FEAT_ALARM says so at TEMPO_IOC_INFO); elsewhere EINVAL. Not
 *    with TEMPO_ARM_CANCEL_ON_SET or TEMPO_ARM_DEFERRABLE, nor without a
 *    clock (EINVAL). A relative REALTIME alarm is an absolute one, the
 *    arm's CLOCK_REALTIME reading plus the delay, as timerfd makes a
 *    CLOCK_REALTIME_ALARM one: it follows sets of the wall clock.
 *  - When: its record is ready, and flagged, as its clock's (TEMPO_EVF_
 *    BOOTTIME or TEMPO_EVF_REALTIME), never before the deadline. A machine
 *    suspended before the deadline wakes by the RTC no earlier than the
 *    deadline less the RTC's resolution (a second on a PC), and the record
 *    is read as any BOOTTIME or REALTIME record after a resume (the bounds
 *    under "Never early"); the kernel refuses a suspend (EBUSY from
 *    /sys/power/state) that begins less than two seconds before an alarm,
 *    as for any alarm. tempo holds no wakeup source: on a system that
 *    suspends on its own (autosleep), a reader keeps it awake with epoll's
 *    EPOLLWAKEUP.
 * A file keeps its alarm timers in a queue per clock, apart from the others
 * (see "Limits").
 *
 * Deferrable timers (TEMPO_ARM_DEFERRABLE, CLOCK_MONOTONIC only; feature
 * TEMPO_FEAT_DEFERRABLE): the timer never causes an interrupt on an idle
 * CPU, as a kernel timer with TIMER_DEFERRABLE. Its record becomes ready
 * when the CPU that holds the file's deferrable timer (the CPU of the arm
 * that set it, as a rule the reader's) runs it: at the deadline, late as
 * below plus a jiffy, while that CPU is busy; at its next wake-up for any
 * other reason while it is idle, however late (a reader that comes by on
 * another CPU before then does not see it yet). Never early. A REARM
 * without the flag makes the timer precise again, and one with it
 * deferrable, as it changes the clock.
 *
 * Never early: a record is ready only once its clock, read after the timer
 * was armed, has reached the deadline, whatever the clock did in between,
 * sets and suspends included. Late by at most, past that instant, for a
 * reader blocked or polling (one that comes by reads the clock itself):
 * slack_us, or a 64th of a tick (tempo_info.tick_ns / 64, 15.6 us at the
 * default tick) if that is more, whatever the delay (TEMPO_FEAT_FINE), plus
 * the reader's wake-up, which the timer's interrupt makes, as timerfd's
 * does; and where a set of the wall clock or a resume is what made the
 * deadline pass (REALTIME stepped forward, BOOTTIME after a suspend), or
 * ends a CANCEL_ON_SET timer, the time the system workqueue takes to run
 * one work item after timekeeping applied the change, plus that bound
 * again, and the work item's visits of the files before. A slack_us of a
 * tick or more gives tick-granular records: whole ticks, shared with the
 * file's other timers and the kernel's. Each kind's bound is one table,
 * "tempo timer time bounds" in include/tempo/timer.h, which the module
 * installs beside this header: a /dev/tempo timer and an alarm are its last
 * rows. A set or a resume costs that one work item, which visits each file
 * holding timers of another clock than CLOCK_MONOTONIC once, whatever their
 * number or its watchers, and wakes only the readers and pollers of a file
 * whose records the change made ready.
 *
 * Time namespaces. CLOCK_MONOTONIC and CLOCK_BOOTTIME times cross this
 * interface in the time namespace (time_namespaces(7)) of the calling task,
 * at the call, as for timer_settime(), timerfd_settime() and
 * clock_nanosleep(): TEMPO_ARM_ABS deadlines in; the deadline and time of
 * records (ordered records' too), a query's deadline and tempo_info's
 * readings out. A timer is one instant of the host's clock: a file passed
 * between tasks in different namespaces shows each task that instant in its
 * own clock. CLOCK_REALTIME has no namespace offset. A time before the
 * caller's clock began (in a namespace whose offset is ahead of the host's)
 * reads as 0, and an absolute deadline before it is taken as that instant
 * (it fires at once).
 *
 * Limits. Any local user may open /dev/tempo. What a user holds is bounded
 * per user (user namespace and effective uid of the opener, over all of its
 * files; the users of a user namespace also count together as its creator,
 * one level up, and so on, as the kernel's ucounts do) by module parameters
 * reported in struct tempo_info: open files (open() fails with EMFILE),
 * timers (TEMPO_IOC_TIMER_ARM fails with ENOSPC; a file counts the most
 * timers it has held at once, as it keeps their slots until close()) and
 * bytes of queued ordered submissions (TEMPO_IOC_ORDER_SUBMIT fails with
 * ENOSPC); and by the module parameter max_user_copy_bytes (64 MiB unless
 * set): the kernel copies of batch arrays that a user's calls in flight
 * hold (struct tempo_batch; ENOSPC beyond). Per file: max_timers,
 * max_events, order_window and max_data. Whatever a call allocates either
 * stays counted by one of these for as long as it stays allocated, or is
 * freed when the call ends: an arm batch that fails, wherever, keeps no room
 * it made for its new timers. A file's fixed part (its context, its event
 * queue, a queue per other clock it has used, six at most, and the unused
 * rest of its slot table's last chunk of 256 slots) is bounded by the open
 * files. Memory is charged to the memory cgroup of the
 * file's opener; at its limit a call fails with ENOMEM. A call that fails on
 * a limit changes nothing.
 *
 * CPU. What one file's timers cost the CPU they expire on, outside the
 * calls of that file's own users, is bounded per expiry, whatever the file
 * holds: the timer interrupt of that CPU, which runs every user's expiries
 * in turn, sorts at most 16 of a file's records at one expiry and wakes its
 * readers, and leaves the rest to whoever reads or polls that file, in its
 * own time (read(), poll() and io_uring's poll do it). So another user's timers on that CPU are
 * delayed by a user's files at most in proportion to how many of them
 * expire at once (at most max_user_contexts), not to how many timers they
 * hold.
 *
 * Conventions. All structs are made of __u32/__u64 and are multiples of 8
 * bytes, identical for 32- and 64-bit callers. Pointers travel as __u64.
 * Reserved fields and unknown flag bits must be zero, or the call fails with
 * EINVAL and changes nothing. Times are nanoseconds of the clock their timer
 * keeps (see "Clocks"), CLOCK_MONOTONIC for everything else. Unknown
 * commands fail with ENOTTY. struct tempo_info grows at its end (see
 * there).
 *
 * ioctl magic: 0xD7, commands 0x00-0x3F (unused in
 * Documentation/userspace-api/ioctl/ioctl-number.rst as of Linux 6.1).
 */
#ifndef _UAPI_TEMPO_H
#define _UAPI_TEMPO_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define TEMPO_DEVICE		"/dev/tempo"
#define TEMPO_IOC_MAGIC		0xD7

/* TEMPO_IOC_INFO .version: bumped on any incompatible change (never, so far). */
#define TEMPO_ABI_VERSION	1

/* TEMPO_IOC_INFO .features */
#define TEMPO_FEAT_TIMERS	(1U << 0)	/* TEMPO_IOC_TIMER_ARM/CANCEL */
#define TEMPO_FEAT_PERIODIC	(1U << 1)	/* tempo_timer_spec.period */
#define TEMPO_FEAT_ORDER	(1U << 2)	/* TEMPO_IOC_ORDER_TICKET/SUBMIT/TRASH */
#define TEMPO_FEAT_SINK		(1U << 3)	/* TEMPO_IOC_ORDER_SINK */
#define TEMPO_FEAT_STATS	(1U << 4)	/* TEMPO_IOC_STATS */
#define TEMPO_FEAT_USER_LIMITS	(1U << 5)	/* tempo_info.max_user_*, ORDER_FLUSH */
#define TEMPO_FEAT_ORDER_SKIP	(1U << 6)	/* TEMPO_IOC_ORDER_SKIP */
#define TEMPO_FEAT_QUERY	(1U << 7)	/* TEMPO_IOC_TIMER_QUERY */
#define TEMPO_FEAT_URING	(1U << 8)	/* IORING_OP_URING_CMD: TEMPO_URING_CMD_* */
/* TEMPO_ARM_BOOTTIME/REALTIME/CANCEL_ON_SET, time namespaces, tempo_info.now_* */
#define TEMPO_FEAT_CLOCKS	(1U << 9)
#define TEMPO_FEAT_DEFERRABLE	(1U << 10)	/* TEMPO_ARM_DEFERRABLE */
#define TEMPO_FEAT_SLACK	(1U << 11)	/* tempo_timer_spec.slack_us */
/* Timers armed on a CPU isolated from timers (nohz_full=) fire on another. */
#define TEMPO_FEAT_HOUSEKEEPING	(1U << 12)
/* Records are ready within a 64th of a tick of their deadline, or slack_us. */
#define TEMPO_FEAT_FINE		(1U << 13)
/* TEMPO_ARM_ALARM, and the machine has an RTC that the kernel wakes it with */
#define TEMPO_FEAT_ALARM	(1U << 14)
#define TEMPO_FEAT_TICKET_MANY	(1U << 15)	/* TEMPO_TICKET_MANY */

#define TEMPO_INFO_SIZE_VER0	64	/* struct tempo_info up to max_user_bytes */

/**
 * struct tempo_info - what this kernel offers (TEMPO_IOC_INFO)
 * @version: TEMPO_ABI_VERSION.
 * @features: TEMPO_FEAT_* bits.
 * @record_size: sizeof(struct tempo_event): read() sizes are multiples of it.
 * @order_window: how far a ticket may run ahead of the oldest unfinished one.
 * @tick_ns: timer granularity.
 * @max_delay_ns: longest relative delay a timer accepts.
 * @min_period_ns: shortest period a periodic timer accepts.
 * @max_timers: live timers per context (TEMPO_IOC_TIMER_ARM fails with ENOSPC beyond).
 * @max_events: ordered records queued per context before they are reported lost.
 * @max_data: largest TEMPO_IOC_ORDER_SUBMIT data, in bytes.
 * @max_user_contexts: open files per user (open() fails with EMFILE beyond).
 * @max_user_timers: timers per user, over all its files, each file counting
 *	the most it has held at once (ENOSPC beyond).
 * @max_user_bytes: bytes of ordered submissions (data and records) queued
 *	per user, over all its files (TEMPO_IOC_ORDER_SUBMIT: ENOSPC beyond).
 * @now_monotonic: CLOCK_MONOTONIC at the call, in the caller's time namespace.
 * @now_boottime: CLOCK_BOOTTIME at the same instant, in the caller's time
 *	namespace.
 * @now_realtime: CLOCK_REALTIME at the same instant.
 * @reserved: zero.
 *
 * The three readings are of one instant, so that a caller can translate a
 * time of one clock into another as tempo does. The struct grows at its end
 * (TEMPO_IOC_INFO's size says which one a caller has): the kernel fills as
 * much of it as the caller's size holds, and a kernel older than
 * TEMPO_FEAT_CLOCKS knows only the TEMPO_INFO_SIZE_VER0 bytes up to
 * @max_user_bytes (ENOTTY for a longer struct; libtempo's tempo_info()
 * asks again with that size).
 */
struct tempo_info {
	__u32 version;
	__u32 features;
	__u32 record_size;
	__u32 order_window;
	__u64 tick_ns;
	__u64 max_delay_ns;
	__u64 min_period_ns;
	__u32 max_timers;
	__u32 max_events;
	__u32 max_data;
	__u32 max_user_contexts;
	__u32 max_user_timers;
	__u32 max_user_bytes;
	__u64 now_monotonic;
	__u64 now_boottime;
	__u64 now_realtime;
	__u64 reserved;
};

/* struct tempo_timer_spec .flags */
#define TEMPO_ARM_ABS		(1U << 0)	/* @value is an absolute deadline */
#define TEMPO_ARM_REARM		(1U << 1)	/* re-arm the existing timer @id */
#define TEMPO_ARM_BOOTTIME	(1U << 2)	/* the timer's clock: CLOCK_BOOTTIME */
#define TEMPO_ARM_REALTIME	(1U << 3)	/* the timer's clock: CLOCK_REALTIME */
#define TEMPO_ARM_CANCEL_ON_SET	(1U << 4)	/* with ABS | REALTIME: end when the clock is set */
#define TEMPO_ARM_DEFERRABLE	(1U << 5)	/* MONOTONIC only: never wakes an idle CPU */
#define TEMPO_ARM_ALARM		(1U << 6)	/* with BOOTTIME or REALTIME: wakes the machine */
#define TEMPO_ARM_FLAGS		(TEMPO_ARM_ABS | TEMPO_ARM_REARM | TEMPO_ARM_BOOTTIME | \
				 TEMPO_ARM_REALTIME | TEMPO_ARM_CANCEL_ON_SET | \
				 TEMPO_ARM_DEFERRABLE | TEMPO_ARM_ALARM)

/**
 * struct tempo_timer_spec - one timer of a TEMPO_IOC_TIMER_ARM batch
 * @cookie: returned in the timer's events; also the key of a cancel by cookie.
 * @value: delay in ns from the call (the whole batch shares one clock
 *	reading), at most max_delay_ns, or with TEMPO_ARM_ABS a deadline in ns
 *	of the timer's clock, in the caller's time namespace, at most
 *	max_delay_ns ahead (a deadline in the past fires at once). Beyond
 *	either: ERANGE.
 * @period: 0 for a one-shot timer, else the period in ns (>= min_period_ns,
 *	else EINVAL; <= max_delay_ns, else ERANGE): deadlines are @value,
 *	@value + @period, ... with no drift.
 * @id: out: the new timer's id (nonzero; once the timer is gone, cancel and
 *	re-arm of this id fail with ENOENT: ids are recycled only after 2^32
 *	reuses of the same slot). In, with TEMPO_ARM_REARM: the
 *	timer to re-arm; its cookie, clock and flags become this element's,
 *	an unread event of it is withdrawn, and its overrun count restarts
 *	(ECANCELED for a CANCEL_ON_SET timer a clock set ended whose record
 *	is unread, see "Clocks").
 * @flags: TEMPO_ARM_* bits: at most one of TEMPO_ARM_BOOTTIME and
 *	TEMPO_ARM_REALTIME (neither: CLOCK_MONOTONIC), and
 *	TEMPO_ARM_CANCEL_ON_SET only with TEMPO_ARM_ABS | TEMPO_ARM_REALTIME,
 *	TEMPO_ARM_DEFERRABLE only without TEMPO_ARM_BOOTTIME and
 *	TEMPO_ARM_REALTIME, TEMPO_ARM_ALARM only with one of them and
 *	without TEMPO_ARM_CANCEL_ON_SET, and only where TEMPO_FEAT_ALARM is
 *	set; else EINVAL. TEMPO_ARM_ALARM without CAP_WAKE_ALARM: EPERM (see
 *	"Alarms").
 * @slack_us: 0, or how late in microseconds the timer may fire after each
 *	deadline (TEMPO_FEAT_SLACK; a kernel without it fails any nonzero
 *	value with EINVAL). At most TEMPO_SLACK_MAX_US, else EINVAL. The
 *	wake-up of a reader blocked in read() or poll() for an expiry comes
 *	no earlier than its deadline and no later than deadline + @slack_us,
 *	or a 64th of a tick later if that is more (see "Never early" above),
 *	so that timers whose windows overlap share one wake-up; a reader that
 *	looks earlier finds the record from the deadline on. Below a tick,
 *	the wake-up comes in the window's last 64th of a tick, as late as it
 *	lets (as an hrtimer's at the end of its range), for the records due
 *	by then to share it; from a tick up it aims at whole ticks. Only
 *	this field sets a slack: the caller's timer slack (PR_SET_TIMERSLACK)
 *	is not applied, as timerfd applies none. A re-arm takes the slack of
 *	its element.
 */
struct tempo_timer_spec {
	__u64 cookie;
	__u64 value;
	__u64 period;
	__u64 id;
	__u32 flags;
	__u32 slack_us;
};

/* The largest tempo_timer_spec.slack_us: one hour. */
#define TEMPO_SLACK_MAX_US	3600000000U

/* struct tempo_batch .flags, for TEMPO_IOC_TIMER_CANCEL */
#define TEMPO_CANCEL_COOKIE	(1U << 0)	/* @ptr holds cookies, not ids */
#define TEMPO_CANCEL_FLAGS	(TEMPO_CANCEL_COOKIE)

/**
 * struct tempo_batch - a batch of timers to arm or cancel
 * @ptr: in: user address of the array, a struct tempo_timer_spec[@count] for
 *	TEMPO_IOC_TIMER_ARM, a __u64[@count] of ids (or cookies, with
 *	TEMPO_CANCEL_COOKIE) for TEMPO_IOC_TIMER_CANCEL, a struct
 *	tempo_timer_query[@count] for TEMPO_IOC_TIMER_QUERY.
 * @count: in: number of elements, at most max_timers.
 * @flags: in: TEMPO_CANCEL_* for cancel, zero for arm and query.
 * @done: out: elements that succeeded.
 * @error_index: out: index of the first element that failed, @count if none.
 * @error: out: that element's negative errno, 0 if none.
 * @affected: out: timers armed or cancelled (a cookie may cancel several).
 *
 * The array is read once, into the kernel, and everything the call decides
 * and does comes from that copy. Arm validates every element before arming
 * any: a malformed element (EINVAL), a deadline out of range (ERANGE), or a
 * batch that would exceed max_timers or max_user_timers (ENOSPC) fails the
 * whole call with no effect. Elements are then applied in order, each
 * atomically; the first that fails (ENOENT for an unknown id to re-arm,
 * EFAULT writing an id back) stops the batch, so @done == @error_index.
 * Cancel applies every element; one whose id (or cookie) names no live timer
 * (never armed, already cancelled, or a one-shot whose event was read) fails
 * with ENOENT and the batch goes on. Cancel by cookie costs one pass over the
 * file's timers, however many cookies the batch holds. Query answers every
 * element from one clock reading and writes the whole array back; an id
 * that names no live timer gets ENOENT in its entry (see struct
 * tempo_timer_query) and in @error, and the batch goes on; @done counts the
 * timers found.
 * The call returns 0 when every element succeeded, else the first failure's
 * error. The out fields are written whenever the struct itself could be read:
 * a failure of the whole batch (bad @flags or @count, a limit, among them
 * ENOSPC for a copy of the array, @count elements, beyond what
 * max_user_copy_bytes leaves; ENOMEM, EFAULT reading the array) has @done
 * 0, @error_index @count (or, for a bad element, its index) and @error the
 * errno. A fatal signal stops a batch
 * part way (EINTR).
 */
struct tempo_batch {
	__u64 ptr;
	__u32 count;
	__u32 flags;
	__u32 done;
	__u32 error_index;
	__s32 error;
	__u32 affected;
};

/* struct tempo_timer_query .state */
#define TEMPO_TIMER_ARMED	1	/* waiting for its deadline */
#define TEMPO_TIMER_FIRED	2	/* expired; its record is ready, unread */
#define TEMPO_TIMER_CLOCK_SET	3	/* CANCEL_ON_SET, ended by a clock set; record unread */

/**
 * struct tempo_timer_query - one timer of a TEMPO_IOC_TIMER_QUERY batch
 * @id: in: the timer's id. Written back unchanged.
 * @deadline: out: TEMPO_TIMER_ARMED: the deadline it waits for (ns of its
 *	clock, in the caller's time namespace). TEMPO_TIMER_FIRED and
 *	TEMPO_TIMER_CLOCK_SET: the deadline its unread record reports (a
 *	periodic timer's next one is set when that record is read).
 * @period: out: its period, 0 for a one-shot.
 * @remaining: out: ns of its clock from the call to @deadline, 0 once it has
 *	passed (an armed timer whose deadline has passed is about to become
 *	FIRED) and for TEMPO_TIMER_CLOCK_SET.
 * @cookie: out: its cookie.
 * @state: out: TEMPO_TIMER_ARMED, TEMPO_TIMER_FIRED or TEMPO_TIMER_CLOCK_SET;
 *	0 with @error ENOENT.
 * @error: out: 0, or -ENOENT if @id names no live timer (never armed,
 *	cancelled, or a one-shot whose record was read).
 *
 * Every out field is written, zero where it does not apply, however the
 * call ends once the array was read.
 */
struct tempo_timer_query {
	__u64 id;
	__u64 deadline;
	__u64 period;
	__u64 remaining;
	__u64 cookie;
	__u32 state;
	__s32 error;
};

/* struct tempo_event .type */
#define TEMPO_EV_TIMER		1	/* a timer expired */
#define TEMPO_EV_ORDER		2	/* an ordered submission completed */
#define TEMPO_EV_LOST		3	/* @overrun ordered records were dropped */

/* struct tempo_event .flags */
#define TEMPO_EVF_FINAL		(1U << 0)	/* the timer is gone; its id is released */
#define TEMPO_EVF_CLOCK_SET	(1U << 1)	/* with FINAL: a set of the wall clock ended it */
#define TEMPO_EVF_BOOTTIME	(1U << 2)	/* @deadline and @time are CLOCK_BOOTTIME */
#define TEMPO_EVF_REALTIME	(1U << 3)	/* @deadline and @time are CLOCK_REALTIME */

/**
 * struct tempo_event - one record returned by read()
 * @id: timer id (TEMPO_EV_TIMER) or ticket (TEMPO_EV_ORDER); 0 for TEMPO_EV_LOST.
 * @cookie: the timer's or the submission's cookie.
 * @deadline: TEMPO_EV_TIMER: the deadline that expired (ns of the timer's
 *	clock: CLOCK_MONOTONIC unless a TEMPO_EVF_BOOTTIME or TEMPO_EVF_REALTIME
 *	flag says otherwise). TEMPO_EV_ORDER: when the submission was made
 *	(CLOCK_MONOTONIC). MONOTONIC and BOOTTIME times are in the reader's
 *	time namespace.
 * @time: when the timer fired (never before @deadline; with
 *	TEMPO_EVF_CLOCK_SET, when the set was found, which may be), or when
 *	the completion ran.
 * @overrun: TEMPO_EV_TIMER: expirations of a periodic timer after @deadline
 *	that were folded into this record. TEMPO_EV_LOST: records dropped.
 * @type: TEMPO_EV_*.
 * @flags: TEMPO_EVF_*.
 * @len: TEMPO_EV_ORDER: length of the submission's data.
 * @reserved: zero.
 */
struct tempo_event {
	__u64 id;
	__u64 cookie;
	__u64 deadline;
	__u64 time;
	__u32 overrun;
	__u16 type;
	__u16 flags;
	__u32 len;
	__u32 reserved;
};

/* struct tempo_ticket .flags */
#define TEMPO_TICKET_NONBLOCK	(1U << 0)	/* fail with EAGAIN when the window is full */
#define TEMPO_TICKET_MANY	(1U << 1)	/* up to @count tickets (FEAT_TICKET_MANY) */
#define TEMPO_TICKET_FLAGS	(TEMPO_TICKET_NONBLOCK | TEMPO_TICKET_MANY)

/* The most tickets one TEMPO_IOC_ORDER_TICKET with TEMPO_TICKET_MANY takes. */
#define TEMPO_TICKET_MANY_MAX	64

/**
 * struct tempo_ticket - take (TEMPO_IOC_ORDER_TICKET) or trash a ticket
 * @ticket: out for TICKET (the first one, with TEMPO_TICKET_MANY), in for
 *	TRASH.
 * @flags: TEMPO_TICKET_* for TICKET, zero for TRASH.
 * @reserved: zero, unless TICKET has TEMPO_TICKET_MANY.
 * @count: TICKET with TEMPO_TICKET_MANY: in, how many tickets the caller
 *	wants, 1 to TEMPO_TICKET_MANY_MAX (else EINVAL); out, how many it got:
 *	@ticket and the @count - 1 after it, consecutive, each to be submitted
 *	or trashed on its own. As many as wanted or as the window has room
 *	for, at least one.
 *
 * TICKET blocks interruptibly while the ordering window is full, unless
 * TEMPO_TICKET_NONBLOCK is set (then EAGAIN). TRASH declares that the ticket
 * will never be submitted; the stream moves past it. A ticket that was not
 * issued by this file, or was already submitted or trashed, gets EINVAL.
 */
struct tempo_ticket {
	__u64 ticket;
	__u32 flags;
	union {
		__u32 reserved;
		__u32 count;
	};
};

/* struct tempo_skip .flags: none yet. */

/**
 * struct tempo_skip - move the ordered stream past a range (TEMPO_IOC_ORDER_SKIP)
 * @end: in: one past the last ticket to give up; at most the next ticket
 *	this file would hand out.
 * @flags: in: zero.
 * @trashed: out: tickets this call trashed.
 *
 * Trashes every ticket below @end that this file issued and that is neither
 * submitted nor trashed, as TEMPO_IOC_ORDER_TRASH of each in turn would
 * (the way a reorder buffer moves its minimum sequence number past a loss):
 * the window gets their room back, and completions parked after the range
 * run at once, in ticket order. A submit or trash of one of them racing
 * with the skip either wins or fails with EINVAL, as after a trash; so does
 * any later one. An @end beyond the tickets issued fails with EINVAL and
 * changes nothing; tickets already finished are not counted. @trashed is
 * written (0) before anything changes: a struct the kernel cannot write
 * fails with EFAULT and changes nothing. Only if it becomes unwritable during
 * the call (another thread unmapping it) does the call fail with EFAULT
 * after the skip took effect; TEMPO_IOC_STATS's trashed counts the tickets.
 * A skip that trashed tickets writes to the sink as a SUBMIT that completes
 * a run does.
 */
struct tempo_skip {
	__u64 end;
	__u32 flags;
	__u32 trashed;
};

/**
 * struct tempo_submit - complete a ticket (TEMPO_IOC_ORDER_SUBMIT)
 * @ticket: a ticket taken from this file and neither submitted nor trashed.
 * @cookie: returned in the TEMPO_EV_ORDER record.
 * @data: user address of @len bytes, copied at once; written to the sink in
 *	ticket order when a sink is set, else only @len is reported.
 * @len: at most max_data.
 * @flags: zero.
 *
 * Returns once the submission is either completed or parked for an earlier
 * ticket's submitter to complete; when this ticket is next in order the
 * caller completes it and up to 64 consecutive parked ones, and writes up to
 * 64 waiting completions if a sink is set (see "Ordered stream" above for
 * the rest). The call succeeds once the submission is accepted, whatever the
 * sink writes do (they are counted in tempo_ctx_stats). The data and
 * record are charged to the user's max_user_bytes until written or read:
 * ENOSPC beyond it, and the ticket stays the caller's.
 */
struct tempo_submit {
	__u64 ticket;
	__u64 cookie;
	__u64 data;
	__u32 len;
	__u32 flags;
};

/**
 * struct tempo_sink - where ordered completions go (TEMPO_IOC_ORDER_SINK)
 * @fd: a file open for writing, or -1 to go back to TEMPO_EV_ORDER records.
 *	A regular file, a FIFO or pipe, or a character device that the kernel
 *	can write (a tty; not /dev/null, whose legacy write path it cannot
 *	use): EINVAL for anything else (sockets included: a unix socket could
 *	carry the tempo file itself and keep both alive), EBADF if not open
 *	for writing.
 * @flags: zero.
 * @reserved: zero.
 *
 * Each completion's data is written as write(2) on @fd by the calling thread
 * would write it (only a call that asks for sink writes, see "Ordered
 * stream" above): its file position, taken under the file's position lock,
 * or none for a stream; the thread's credentials (a write clears a setuid
 * bit), RLIMIT_FSIZE (EFBIG and SIGXFSZ), LSM checks and SIGPIPE; and the
 * sink's own O_NONBLOCK: a write to a full pipe blocks the caller
 * (interruptibly) unless @fd is O_NONBLOCK. O_NONBLOCK on the tempo file
 * only means that the call never waits for another thread's sink write
 * (EAGAIN for TEMPO_IOC_ORDER_FLUSH and SINK). A write interrupted by a
 * signal, or that would block (EAGAIN), is not a failure: the rest of the
 * data stays queued for a later call. A failed or short write is counted in
 * tempo_ctx_stats.sink_errors and sink_last_error, and that completion's
 * data is dropped. Completions queued for the old sink are written to it
 * before the switch; if a signal stops that (EINTR) or it would block
 * (EAGAIN), the call fails and changes nothing.
 */
struct tempo_sink {
	__s32 fd;
	__u32 flags;
	__u64 reserved;
};

/**
 * struct tempo_ctx_stats - counters of one context (one open file)
 * @timers: live timers now.
 * @armed: successful arms, re-arms included.
 * @rearmed: of which re-arms.
 * @fired: expirations seen (periodic ones each time).
 * @cancelled: timers cancelled before their event was read.
 * @events_read: records returned by read().
 * @events_ready: records ready to read now.
 * @overruns: periodic expirations folded into an unread record.
 * @events_lost: ordered records dropped (queue full) or lost to a read() EFAULT.
 * @tickets: tickets taken.
 * @submitted: submissions.
 * @trashed: tickets trashed (by TEMPO_IOC_ORDER_TRASH or at close).
 * @completed: completions run (records queued or data written).
 * @sink_bytes: bytes written to sinks.
 * @sink_errors: failed or short sink writes.
 * @sink_last_error: negative errno of the last failed sink write, or 0.
 * @sink_pending: completions waiting for a call to write them to the sink
 *	(see "Ordered stream"; dropped if still waiting at close).
 * @reserved: zero.
 */
struct tempo_ctx_stats {
	__u64 timers;
	__u64 armed;
	__u64 rearmed;
	__u64 fired;
	__u64 cancelled;
	__u64 events_read;
	__u64 events_ready;
	__u64 overruns;
	__u64 events_lost;
	__u64 tickets;
	__u64 submitted;
	__u64 trashed;
	__u64 completed;
	__u64 sink_bytes;
	__u64 sink_errors;
	__s32 sink_last_error;
	__u32 sink_pending;
	__u32 reserved[2];
};

/* struct tempo_mod_stats .scope */
#define TEMPO_STATS_MODULE	0	/* the module's counters, over every user's files */
#define TEMPO_STATS_USER	1	/* the caller's user's holdings only */

/**
 * struct tempo_mod_stats - counters of the whole module, or of one user
 * @contexts: open files now.
 * @timers: live timers now, over all files (0 when nothing leaked).
 *	TEMPO_STATS_USER: the timer slots the user's files hold, what
 *	max_user_timers counts.
 * @submissions: ordered submissions in flight or unread, over all files.
 * @bytes: memory charged to userspace for timers and submissions, now.
 *	TEMPO_STATS_USER: the user's timer slots times a slot's size, plus its
 *	queued ordered bytes (what max_user_bytes counts).
 * @opens: files opened since load.
 * @armed: arms since load.
 * @fired: expirations since load.
 * @completed: ordered completions since load.
 * @sink_dropped: ordered completions whose data was never written to their
 *	sink, because the file was closed first (TEMPO_IOC_ORDER_FLUSH before
 *	close() writes them), since load.
 * @scope: TEMPO_STATS_MODULE or TEMPO_STATS_USER. The module's counters
 *	would show one user what another does (when it opens a file, how many
 *	timers it arms and reads), so only a file opened with CAP_SYS_ADMIN or
 *	CAP_PERFMON in the initial user namespace gets them, as for the
 *	kernel's other global statistics; any other file gets the holdings of
 *	the caller's user (user namespace and effective uid, as the limits
 *	count them), whoever opened the file (a file passed to another user
 *	shows it its own, never the opener's other files; a user holding
 *	nothing gets 0): @contexts, @timers and @bytes as described, every
 *	other field 0.
 * @reserved32: zero.
 * @reserved: zero.
 */
struct tempo_mod_stats {
	__u64 contexts;
	__u64 timers;
	__u64 submissions;
	__u64 bytes;
	__u64 opens;
	__u64 armed;
	__u64 fired;
	__u64 completed;
	__u64 sink_dropped;
	__u32 scope;
	__u32 reserved32;
	__u64 reserved[2];
};

/**
 * struct tempo_stats - TEMPO_IOC_STATS
 * @ctx: this file's context.
 * @mod: the module, or the caller's user (see @mod.scope).
 */
struct tempo_stats {
	struct tempo_ctx_stats ctx;
	struct tempo_mod_stats mod;
};

/*
 * io_uring. An io_uring loop arms and cancels timers without a system call
 * per batch: IORING_OP_URING_CMD on a /dev/tempo fd, with sqe->cmd_op one of
 * TEMPO_URING_CMD_* and the SQE's command area (sqe->cmd, 16 bytes: a normal
 * 64-byte SQE, no IORING_SETUP_SQE128 needed) holding a struct
 * tempo_uring_cmd. The batch it points to is the ioctl's, with the same
 * checks, limits, accounting and out fields; the CQE's res is the number of
 * elements done (@done) when every element succeeded, else the negative
 * errno the ioctl would return. An unknown cmd_op fails with ENOTTY. io_uring
 * may issue the command from one of its workers (the submitting task's
 * credentials and memory): no completion of the ordered stream is written to
 * a sink from it. read() and poll() of the file work through io_uring
 * (IORING_OP_READ, READV, READ_FIXED; IORING_OP_POLL_ADD, multishot too)
 * with the same exactly-once delivery as the system calls. The file reads
 * without blocking when asked to (FMODE_NOWAIT), so io_uring reads it in
 * the submitting task, never in a worker thread: records that are ready
 * complete the READ at once, and a READ that finds none waits for one by
 * poll (io_uring arms a poll and retries) instead of completing with EAGAIN,
 * even when the file is O_NONBLOCK (io_uring's rule for every pollable
 * file). Linux 5.19 and later.
 */
#define TEMPO_URING_CMD_ARM	1	/* @batch: as TEMPO_IOC_TIMER_ARM */
#define TEMPO_URING_CMD_CANCEL	2	/* @batch: as TEMPO_IOC_TIMER_CANCEL */

/**
 * struct tempo_uring_cmd - the command area of a TEMPO_URING_CMD_* SQE
 * @batch: user address of a struct tempo_batch.
 * @flags: zero.
 * @reserved: zero.
 */
struct tempo_uring_cmd {
	__u64 batch;
	__u32 flags;
	__u32 reserved;
};

#define TEMPO_IOC_INFO		_IOR(TEMPO_IOC_MAGIC, 0x00, struct tempo_info)
#define TEMPO_IOC_STATS		_IOR(TEMPO_IOC_MAGIC, 0x01, struct tempo_stats)
#define TEMPO_IOC_TIMER_ARM	_IOWR(TEMPO_IOC_MAGIC, 0x10, struct tempo_batch)
#define TEMPO_IOC_TIMER_CANCEL	_IOWR(TEMPO_IOC_MAGIC, 0x11, struct tempo_batch)
#define TEMPO_IOC_TIMER_QUERY	_IOWR(TEMPO_IOC_MAGIC, 0x12, struct tempo_batch)
#define TEMPO_IOC_ORDER_TICKET	_IOWR(TEMPO_IOC_MAGIC, 0x20, struct tempo_ticket)
#define TEMPO_IOC_ORDER_SUBMIT	_IOW(TEMPO_IOC_MAGIC, 0x21, struct tempo_submit)
#define TEMPO_IOC_ORDER_TRASH	_IOW(TEMPO_IOC_MAGIC, 0x22, struct tempo_ticket)
#define TEMPO_IOC_ORDER_SINK	_IOW(TEMPO_IOC_MAGIC, 0x23, struct tempo_sink)
/*
 * Write every completion waiting for the sink, from the calling thread; EINTR
 * if a signal stops it, EAGAIN if the sink would block (an O_NONBLOCK sink,
 * or, on an O_NONBLOCK tempo file, another thread writing): what is left
 * stays queued. Call it before close(), which drops what is left.
 */
#define TEMPO_IOC_ORDER_FLUSH	_IO(TEMPO_IOC_MAGIC, 0x24)
#define TEMPO_IOC_ORDER_SKIP	_IOWR(TEMPO_IOC_MAGIC, 0x25, struct tempo_skip)

#endif /* _UAPI_TEMPO_H */
