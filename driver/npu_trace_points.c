// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_trace_points.c - instantiates the tracepoints of npu_trace_points.h.
 */

#define CREATE_TRACE_POINTS
#include "npu_trace_points.h"
