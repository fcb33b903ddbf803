/* SPDX-License-Identifier: GPL-2.0 */
#include "../../tempo_user.h"
#ifndef EPOLLIN
#define EPOLLIN		0x00000001
#define EPOLLPRI	0x00000002
#define EPOLLOUT	0x00000004
#define EPOLLERR	0x00000008
#define EPOLLHUP	0x00000010
#define EPOLLRDNORM	0x00000040
#endif
