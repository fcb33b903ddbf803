/* SPDX-License-Identifier: GPL-2.0 */
/* Nothing to instantiate in userspace (see linux/tracepoint.h here). */
