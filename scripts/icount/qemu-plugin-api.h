/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of QEMU 7.2's TCG plugin API (version 1) icount-plugin.c uses,
 * declared as the API documents it, since Debian ships no qemu-plugin.h.
 * A plugin id is a 64-bit integer; blocks and instructions are opaque.
 */
#ifndef SROCE_QEMU_PLUGIN_API_H
#define SROCE_QEMU_PLUGIN_API_H

#include <stddef.h>

#include <linux/types.h>

#define EXPORT __attribute__((visibility("default")))

struct qemu_plugin_tb;
struct qemu_plugin_insn;

/* the one inline operation there is: add an immediate to a u64 */
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(__u64 id,
					   void (*cb)(__u64 id,
						      struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, __u64 imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
__u64 qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

#endif /* SROCE_QEMU_PLUGIN_API_H */
