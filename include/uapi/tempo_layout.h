/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The frozen layout of the /dev/tempo ABI (tempo.h): every struct's size and
 * every field's offset, one list for every compiler that checks it. The
 * includer defines TEMPO_ABI_SIZE(name, size) and TEMPO_ABI_FIELD(name,
 * field, offset) as checks of struct name and includes this file where the
 * checks may stand: kmod/dev.c (BUILD_BUG_ON, the kernel's build),
 * tools/lib/libtempo.c (_Static_assert, userspace) and `make abi32` (the same
 * under -m32: the layouts are identical for 32-bit callers, which
 * compat_ioctl relies on). Not a header to use otherwise; no include guard,
 * on purpose. A change here is an ABI change.
 */
TEMPO_ABI_SIZE(tempo_info, 96);
TEMPO_ABI_FIELD(tempo_info, version, 0);
TEMPO_ABI_FIELD(tempo_info, features, 4);
TEMPO_ABI_FIELD(tempo_info, record_size, 8);
TEMPO_ABI_FIELD(tempo_info, order_window, 12);
TEMPO_ABI_FIELD(tempo_info, tick_ns, 16);
TEMPO_ABI_FIELD(tempo_info, max_delay_ns, 24);
TEMPO_ABI_FIELD(tempo_info, min_period_ns, 32);
TEMPO_ABI_FIELD(tempo_info, max_timers, 40);
TEMPO_ABI_FIELD(tempo_info, max_events, 44);
TEMPO_ABI_FIELD(tempo_info, max_data, 48);
TEMPO_ABI_FIELD(tempo_info, max_user_contexts, 52);
TEMPO_ABI_FIELD(tempo_info, max_user_timers, 56);
TEMPO_ABI_FIELD(tempo_info, max_user_bytes, 60);
TEMPO_ABI_FIELD(tempo_info, now_monotonic, 64);
TEMPO_ABI_FIELD(tempo_info, now_boottime, 72);
TEMPO_ABI_FIELD(tempo_info, now_realtime, 80);
TEMPO_ABI_FIELD(tempo_info, reserved, 88);
TEMPO_ABI_SIZE(tempo_timer_spec, 40);
TEMPO_ABI_FIELD(tempo_timer_spec, cookie, 0);
TEMPO_ABI_FIELD(tempo_timer_spec, value, 8);
TEMPO_ABI_FIELD(tempo_timer_spec, period, 16);
TEMPO_ABI_FIELD(tempo_timer_spec, id, 24);
TEMPO_ABI_FIELD(tempo_timer_spec, flags, 32);
TEMPO_ABI_FIELD(tempo_timer_spec, slack_us, 36);
TEMPO_ABI_SIZE(tempo_batch, 32);
TEMPO_ABI_FIELD(tempo_batch, ptr, 0);
TEMPO_ABI_FIELD(tempo_batch, count, 8);
TEMPO_ABI_FIELD(tempo_batch, flags, 12);
TEMPO_ABI_FIELD(tempo_batch, done, 16);
TEMPO_ABI_FIELD(tempo_batch, error_index, 20);
TEMPO_ABI_FIELD(tempo_batch, error, 24);
TEMPO_ABI_FIELD(tempo_batch, affected, 28);
TEMPO_ABI_SIZE(tempo_timer_query, 48);
TEMPO_ABI_FIELD(tempo_timer_query, id, 0);
TEMPO_ABI_FIELD(tempo_timer_query, deadline, 8);
TEMPO_ABI_FIELD(tempo_timer_query, period, 16);
TEMPO_ABI_FIELD(tempo_timer_query, remaining, 24);
TEMPO_ABI_FIELD(tempo_timer_query, cookie, 32);
TEMPO_ABI_FIELD(tempo_timer_query, state, 40);
TEMPO_ABI_FIELD(tempo_timer_query, error, 44);
TEMPO_ABI_SIZE(tempo_event, 48);
TEMPO_ABI_FIELD(tempo_event, id, 0);
TEMPO_ABI_FIELD(tempo_event, cookie, 8);
TEMPO_ABI_FIELD(tempo_event, deadline, 16);
TEMPO_ABI_FIELD(tempo_event, time, 24);
TEMPO_ABI_FIELD(tempo_event, overrun, 32);
TEMPO_ABI_FIELD(tempo_event, type, 36);
TEMPO_ABI_FIELD(tempo_event, flags, 38);
TEMPO_ABI_FIELD(tempo_event, len, 40);
TEMPO_ABI_FIELD(tempo_event, reserved, 44);
TEMPO_ABI_SIZE(tempo_ticket, 16);
TEMPO_ABI_FIELD(tempo_ticket, ticket, 0);
TEMPO_ABI_FIELD(tempo_ticket, flags, 8);
TEMPO_ABI_FIELD(tempo_ticket, reserved, 12);
TEMPO_ABI_SIZE(tempo_submit, 32);
TEMPO_ABI_FIELD(tempo_submit, ticket, 0);
TEMPO_ABI_FIELD(tempo_submit, cookie, 8);
TEMPO_ABI_FIELD(tempo_submit, data, 16);
TEMPO_ABI_FIELD(tempo_submit, len, 24);
TEMPO_ABI_FIELD(tempo_submit, flags, 28);
TEMPO_ABI_SIZE(tempo_skip, 16);
TEMPO_ABI_FIELD(tempo_skip, end, 0);
TEMPO_ABI_FIELD(tempo_skip, flags, 8);
TEMPO_ABI_FIELD(tempo_skip, trashed, 12);
TEMPO_ABI_SIZE(tempo_uring_cmd, 16);
TEMPO_ABI_FIELD(tempo_uring_cmd, batch, 0);
TEMPO_ABI_FIELD(tempo_uring_cmd, flags, 8);
TEMPO_ABI_FIELD(tempo_uring_cmd, reserved, 12);
TEMPO_ABI_SIZE(tempo_sink, 16);
TEMPO_ABI_FIELD(tempo_sink, fd, 0);
TEMPO_ABI_FIELD(tempo_sink, flags, 4);
TEMPO_ABI_FIELD(tempo_sink, reserved, 8);
TEMPO_ABI_SIZE(tempo_ctx_stats, 136);
TEMPO_ABI_FIELD(tempo_ctx_stats, timers, 0);
TEMPO_ABI_FIELD(tempo_ctx_stats, armed, 8);
TEMPO_ABI_FIELD(tempo_ctx_stats, rearmed, 16);
TEMPO_ABI_FIELD(tempo_ctx_stats, fired, 24);
TEMPO_ABI_FIELD(tempo_ctx_stats, cancelled, 32);
TEMPO_ABI_FIELD(tempo_ctx_stats, events_read, 40);
TEMPO_ABI_FIELD(tempo_ctx_stats, events_ready, 48);
TEMPO_ABI_FIELD(tempo_ctx_stats, overruns, 56);
TEMPO_ABI_FIELD(tempo_ctx_stats, events_lost, 64);
TEMPO_ABI_FIELD(tempo_ctx_stats, tickets, 72);
TEMPO_ABI_FIELD(tempo_ctx_stats, submitted, 80);
TEMPO_ABI_FIELD(tempo_ctx_stats, trashed, 88);
TEMPO_ABI_FIELD(tempo_ctx_stats, completed, 96);
TEMPO_ABI_FIELD(tempo_ctx_stats, sink_bytes, 104);
TEMPO_ABI_FIELD(tempo_ctx_stats, sink_errors, 112);
TEMPO_ABI_FIELD(tempo_ctx_stats, sink_last_error, 120);
TEMPO_ABI_FIELD(tempo_ctx_stats, sink_pending, 124);
TEMPO_ABI_FIELD(tempo_ctx_stats, reserved, 128);
TEMPO_ABI_SIZE(tempo_mod_stats, 96);
TEMPO_ABI_FIELD(tempo_mod_stats, contexts, 0);
TEMPO_ABI_FIELD(tempo_mod_stats, timers, 8);
TEMPO_ABI_FIELD(tempo_mod_stats, submissions, 16);
TEMPO_ABI_FIELD(tempo_mod_stats, bytes, 24);
TEMPO_ABI_FIELD(tempo_mod_stats, opens, 32);
TEMPO_ABI_FIELD(tempo_mod_stats, armed, 40);
TEMPO_ABI_FIELD(tempo_mod_stats, fired, 48);
TEMPO_ABI_FIELD(tempo_mod_stats, completed, 56);
TEMPO_ABI_FIELD(tempo_mod_stats, sink_dropped, 64);
TEMPO_ABI_FIELD(tempo_mod_stats, scope, 72);
TEMPO_ABI_FIELD(tempo_mod_stats, reserved32, 76);
TEMPO_ABI_FIELD(tempo_mod_stats, reserved, 80);
TEMPO_ABI_SIZE(tempo_stats, 232);
TEMPO_ABI_FIELD(tempo_stats, ctx, 0);
TEMPO_ABI_FIELD(tempo_stats, mod, 136);
