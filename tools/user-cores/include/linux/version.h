/* SPDX-License-Identifier: GPL-2.0 */
/* The shims provide the newest kernel API, so kmod/compat.h adds nothing here. */
#ifndef _TEMPO_USER_VERSION_H
#define _TEMPO_USER_VERSION_H
#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define LINUX_VERSION_CODE KERNEL_VERSION(7, 2, 0)
#endif
