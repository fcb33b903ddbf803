/* SPDX-License-Identifier: GPL-2.0 */
/* kmod/trace.h in userspace: every tracepoint is an empty inline. */
#ifndef _TEMPO_USER_TRACEPOINT_H
#define _TEMPO_USER_TRACEPOINT_H
#include "../tempo_user.h"
#define TP_PROTO(args...) args
#define TP_ARGS(args...) args
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	static inline void trace_##name(proto) { }
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args) \
	static inline void trace_##name(proto) { }
#endif
