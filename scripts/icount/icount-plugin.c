// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that counts the guest instructions executed, per
 * translation block start address, for make bench's instruction counts
 * (scripts/icount/report.py attributes the addresses to symbols).
 *
 * Each block, when translated, gets an inline add of its instruction count
 * to a counter of its start address, so an execution costs the emulator
 * one add and no call.  A block that is one REP-prefixed string
 * instruction runs once per element (TCG loops through the block), so its
 * count goes to a counter of its own and is reported apart.  Counters are
 * not atomic: exact for one vCPU, close for more.
 *
 * The guest asks for a snapshot by writing a name into the control file
 * (plugin argument ctl=PATH): a thread of the plugin polls it, writes
 * every kernel counter to PATH.NAME ("address instructions
 * rep-instructions" a line, hex address), user space summed on a line of
 * address 0, and then renames the control file to PATH.done.
 *
 * Debian ships no qemu-plugin.h: the few functions of QEMU 7.2's plugin
 * API (version 1) used here are declared in qemu-plugin-api.h.
 *
 * Build: gcc -O2 -shared -fPIC -o icount.so icount-plugin.c -lpthread
 * Use:   qemu-system-x86_64 ... -plugin icount.so,ctl=/some/dir/icount.ctl
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>

#include "qemu-plugin-api.h"

EXPORT int qemu_plugin_version = 1;

/* --- Counters ------------------------------------------------------------ */

/* One start address: its counters never move once handed to TCG */
struct block {
	__u64 vaddr;
	__u64 insns;
	__u64 rep;
	struct block *next;
};

#define BUCKETS 0x100000u
/* x86-64: the kernel's half of the address space; user space is summed */
#define KERNEL_START 0xffff800000000000ull

static struct block **table;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static char ctl[4096];

static struct block *block_of(__u64 vaddr)
{
	__u64 h = (vaddr * 0x9e3779b97f4a7c15ull) >> 44;
	struct block *b;

	pthread_mutex_lock(&table_lock);
	for (b = table[h]; b; b = b->next)
		if (b->vaddr == vaddr)
			break;
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (b) {
			b->vaddr = vaddr;
			b->next = table[h];
			table[h] = b;
		}
	}
	pthread_mutex_unlock(&table_lock);
	return b;
}

/* Is @insn a REP/REPNE-prefixed string instruction (MOVS, STOS, ...)? */
static bool is_rep_string(const struct qemu_plugin_insn *insn)
{
	const __u8 *p = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn), i;
	bool rep = false;

	for (i = 0; i < n; i++) {
		__u8 c = p[i];

		if (c == 0xf3 || c == 0xf2) {
			rep = true;
			continue;
		}
		/* operand/address size, segment and REX prefixes */
		if (c == 0x66 || c == 0x67 || c == 0x2e || c == 0x3e ||
		    c == 0x26 || c == 0x64 || c == 0x65 || c == 0x36 ||
		    (c & 0xf0) == 0x40)
			continue;
		return rep && ((c >= 0xa4 && c <= 0xa7) ||
			       (c >= 0xaa && c <= 0xaf) ||
			       (c >= 0x6c && c <= 0x6f));
	}
	return false;
}

static void tb_trans(__u64 id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b = block_of(qemu_plugin_tb_vaddr(tb));
	__u64 *ctr;

	(void)id;
	if (!b || !n)
		return;
	ctr = n == 1 && is_rep_string(qemu_plugin_tb_get_insn(tb, 0)) ?
	      &b->rep : &b->insns;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 ctr, n);
}

/* --- Snapshots ----------------------------------------------------------- */

static int snapshot(const char *name)
{
	char path[sizeof(ctl) + 256], tmp[sizeof(path) + 8];
	__u64 user = 0, user_rep = 0;
	struct block *b;
	unsigned int h;
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", ctl, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	pthread_mutex_lock(&table_lock);
	for (h = 0; h < BUCKETS; h++)
		for (b = table[h]; b; b = b->next) {
			if (b->vaddr < KERNEL_START) {
				user += b->insns;
				user_rep += b->rep;
				continue;
			}
			if (b->insns || b->rep)
				fprintf(f, "%llx %llu %llu\n",
					(unsigned long long)b->vaddr,
					(unsigned long long)b->insns,
					(unsigned long long)b->rep);
		}
	pthread_mutex_unlock(&table_lock);
	/* user space as one line, at address 0 */
	fprintf(f, "0 %llu %llu\n", (unsigned long long)user,
		(unsigned long long)user_rep);
	if (fclose(f))
		return -1;
	return rename(tmp, path);
}

/* A name is a word of letters, digits, '-', '_' and '.', not starting with '.' */
static bool good_name(const char *s)
{
	size_t i;

	if (!s[0] || s[0] == '.' || strlen(s) > 200)
		return false;
	for (i = 0; s[i]; i++)
		if (!(s[i] == '-' || s[i] == '_' || s[i] == '.' ||
		      (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

static void *poller(void *arg)
{
	char name[256], done[sizeof(ctl) + 8];
	FILE *f;

	(void)arg;
	snprintf(done, sizeof(done), "%s.done", ctl);
	for (;;) {
		usleep(20000);
		f = fopen(ctl, "r");
		if (!f)
			continue;
		if (!fgets(name, sizeof(name), f))
			name[0] = 0;
		fclose(f);
		name[strcspn(name, "\r\n")] = 0;
		if (!good_name(name) || snapshot(name))
			fprintf(stderr, "icount: snapshot '%s' failed\n", name);
		rename(ctl, done);
	}
	return NULL;
}

EXPORT int qemu_plugin_install(__u64 id, const void *info, int argc,
			       char **argv)
{
	pthread_t t;
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "ctl=", 4))
			snprintf(ctl, sizeof(ctl), "%s", argv[i] + 4);
	if (!ctl[0]) {
		fprintf(stderr, "icount: wants ctl=PATH\n");
		return -1;
	}
	table = calloc(BUCKETS, sizeof(*table));
	if (!table)
		return -1;
	if (pthread_create(&t, NULL, poller, NULL))
		return -1;
	pthread_detach(t);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
