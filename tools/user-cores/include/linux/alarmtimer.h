/* SPDX-License-Identifier: GPL-2.0 */
#include "../tempo_user.h"
