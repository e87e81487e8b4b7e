// SPDX-License-Identifier: GPL-2.0
/*
 * Send IEEE 802.1Qbb PFC frames for scripts/tests/qos.sh: C rather than
 * Python, so that an emulated guest can refresh a pause every millisecond
 * (one frame lasts 3.4 ms at 10 Gb/s).
 *
 * Usage: pfc_inject IFNAME STEP...  Steps, run in order:
 *   xoff:PRIO:MS   pause PRIO for the longest time (65535 quanta), again
 *                  every millisecond, for MS milliseconds
 *   xon:PRIO       resume PRIO (a time of 0)
 *   once:PRIO      one pause frame for PRIO
 *   sleep:MS
 *   short          a PFC frame cut to 10 bytes after its EtherType
 *   badop          MAC Control opcode 0x0102, which no one defined
 *   pause          an 802.3x PAUSE frame (opcode 0x0001), not PFC
 *   go             wait for a line on standard input: started ahead, the
 *                  schedule begins without the delay of starting a
 *                  process on a guest that the flows keep busy
 * Prints "XOFF PRIO T1 T2" for each pause frame and "XON PRIO T1 T2" for
 * each resume, T1 and T2 read just before and just after the send (seconds
 * since the epoch, the clock of packet captures): the receiver acted on
 * the frame between the two, however long the guest was held up in
 * between.  Then "SENT PRIO N" for each priority: the pause frames sent.
 */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FRAME_LEN 60

static int fd;
static unsigned char hdr[14];
static long sent[8];

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put16(unsigned char *p, unsigned int v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* Send a MAC Control frame of @len bytes after the EtherType */
static void send_frame(unsigned int opcode, int prio, unsigned int quanta,
		       size_t len)
{
	unsigned char f[FRAME_LEN] = { 0 };

	memcpy(f, hdr, sizeof(hdr));
	put16(f + 14, opcode);
	put16(f + 16, 1u << prio);
	put16(f + 18 + 2 * prio, quanta);
	if (send(fd, f, 14 + len, 0) < 0) {
		perror("send");
		exit(1);
	}
}

/* A PFC frame for @prio with @quanta, logged as @what */
static void pfc_frame(const char *what, int prio, unsigned int quanta)
{
	double t1 = now(CLOCK_REALTIME);

	send_frame(0x0101, prio, quanta, FRAME_LEN - 14);
	printf("%s %d %.6f %.6f\n", what, prio, t1, now(CLOCK_REALTIME));
}

static void pause_frame(int prio)
{
	pfc_frame("XOFF", prio, 0xffff);
	sent[prio]++;
}

static void sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1000),
			       (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6) };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	static const unsigned char da[6] = { 0x01, 0x80, 0xc2, 0, 0, 1 };
	unsigned int m[6];
	char path[128];
	FILE *f;
	int i, p;

	if (argc < 3) {
		fprintf(stderr, "usage: %s IFNAME STEP...\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/address", argv[1]);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3],
			 &m[4], &m[5]) != 6) {
		fprintf(stderr, "no address of %s\n", argv[1]);
		return 1;
	}
	fclose(f);
	memcpy(hdr, da, 6);
	for (i = 0; i < 6; i++)
		hdr[6 + i] = m[i];
	put16(hdr + 12, 0x8808);

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	sll.sll_ifindex = if_nametoindex(argv[1]);
	if (fd < 0 || !sll.sll_ifindex ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror(argv[1]);
		return 1;
	}
	for (i = 2; i < argc; i++) {
		char *s = argv[i];
		int ms;

		if (sscanf(s, "xoff:%d:%d", &p, &ms) == 2 && p >= 0 && p < 8) {
			double end = now(CLOCK_MONOTONIC) + ms / 1000.0;

			while (now(CLOCK_MONOTONIC) < end) {
				pause_frame(p);
				sleep_ms(1);
			}
		} else if (sscanf(s, "once:%d", &p) == 1 && p >= 0 && p < 8) {
			pause_frame(p);
		} else if (sscanf(s, "xon:%d", &p) == 1 && p >= 0 && p < 8) {
			pfc_frame("XON", p, 0);
		} else if (sscanf(s, "sleep:%d", &ms) == 1) {
			sleep_ms(ms);
		} else if (!strcmp(s, "short")) {
			send_frame(0x0101, 3, 0xffff, 10);
		} else if (!strcmp(s, "badop")) {
			send_frame(0x0102, 3, 0xffff, FRAME_LEN - 14);
		} else if (!strcmp(s, "go")) {
			char line[16];

			if (!fgets(line, sizeof(line), stdin)) {
				fprintf(stderr, "no go on standard input\n");
				return 1;
			}
		} else if (!strcmp(s, "pause")) {
			/* its one time sits where PFC's vector would */
			send_frame(0x0001, 0, 0, FRAME_LEN - 14);
		} else {
			fprintf(stderr, "unknown step %s\n", s);
			return 2;
		}
	}
	for (p = 0; p < 8; p++)
		printf("SENT %d %ld\n", p, sent[p]);
	return 0;
}
