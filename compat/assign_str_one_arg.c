// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoints' __assign_str() names the field only, and copies from the
 * source __string() recorded (6.10); before, it took the source again.
 * A macro given too few arguments is an error, so expanding a call with
 * one of them, into a string, tells the two apart.
 */
#include <linux/tracepoint.h>
#include <trace/stages/stage6_event_callback.h>

#define sroce_probe_str(x)	#x
#define sroce_probe_xstr(x)	sroce_probe_str(x)

const char sroce_probe[] = sroce_probe_xstr(__assign_str(dev));
