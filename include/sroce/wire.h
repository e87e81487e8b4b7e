/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sroce wire layer: pure functions over byte buffers, no kernel objects.
 * Users include this one header.
 */
#ifndef SROCE_WIRE_H
#define SROCE_WIRE_H

#include <sroce/frame.h>
#include <sroce/hdr.h>
#include <sroce/icrc.h>
#include <sroce/nethdr.h>
#include <sroce/opcode.h>
#include <sroce/psn.h>

#endif /* SROCE_WIRE_H */
