// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints' definitions (include/sroce/trace.h); the events are
 * raised where the transport decides what they report.
 */
#define CREATE_TRACE_POINTS
#include <sroce/trace.h>
