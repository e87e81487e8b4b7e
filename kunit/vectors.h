/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Known-good RoCE packets shared by the sroce_icrc and sroce_frame suites.
 * Each starts at the network header and ends with its ICRC.
 */
#ifndef SROCE_KUNIT_VECTORS_H
#define SROCE_KUNIT_VECTORS_H

#include <linux/types.h>

#include <sroce/nethdr.h>

struct sroce_test_vec {
	const char *name;
	enum sroce_net_type type;
	const u8 *data;
	unsigned int len;
};

extern const struct sroce_test_vec sroce_test_vec_cnp;
extern const struct sroce_test_vec sroce_test_vec_uc;
extern const struct sroce_test_vec sroce_test_vec_v1;
extern const struct sroce_test_vec sroce_test_vec_v6;
extern const struct sroce_test_vec sroce_test_vec_ipopt;

#endif /* SROCE_KUNIT_VECTORS_H */
