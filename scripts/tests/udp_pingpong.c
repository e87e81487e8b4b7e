// SPDX-License-Identifier: GPL-2.0
/*
 * The wire's own round trip, for `make bench`: what a verbs latency test
 * between the two guests cannot go below.
 *   udp_pingpong [-a] -s PORT
 * echoes every datagram to its sender until it receives an empty one;
 *   udp_pingpong [-a] -c HOST PORT SIZE ITERS
 * sends ITERS datagrams of SIZE bytes one at a time, each after the echo
 * of the one before, and prints a line in the columns of perftest's
 * latency tools: "SIZE ITERS min max typical average", in microseconds,
 * each a round trip halved as perftest halves its own.
 *
 * With -a (on both ends) each side answers the other's datagram with a
 * 1-byte acknowledgment before anything else: the four packets of a
 * round trip of perftest's ib_write_lat or ib_send_lat over RC, where
 * each side waits for the ACK of its own message (its send completion)
 * and the responder sends that ACK on receipt, before its application
 * sees the message.  Here the acknowledgments come from user space, a
 * system call each, where an RC responder sends them from its softirq.
 *
 * Both ends poll their socket without sleeping, as perftest polls its
 * completion queue and memory, so no wake-up is counted that perftest
 * does not pay.  The first tenth of the iterations warms up and is not
 * counted.  Exits 0 on success, 1 if an answer did not come back within
 * a second: a lost datagram is not sent again, as its late echo could
 * not be told from the next one's.  Before it, the client probes for the
 * server (which may not be bound yet) with datagrams of a size no round
 * trip uses, so that the echo of a probe sent twice is never taken for a
 * round trip's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ACK		1
#define MIN_SIZE	(ACK + 1)
#define MAX_SIZE	4096
#define PROBE		(MAX_SIZE + 1)
#define WAIT_NS		1000000000LL
#define PROBE_NS	100000000LL
#define PROBES		100
#define ENDS		3

static char buf[PROBE];
static int acked;

/*
 * A client that gives up leaves the server running: a client started again
 * (perftest.sh retries) probes it from a new port, where no late echo of
 * this one's can reach it.
 */
static void die(const char *what)
{
	fprintf(stderr, "udp_pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int serve(const char *port)
{
	struct sockaddr_in me = { .sin_family = AF_INET };
	struct sockaddr_storage peer;
	socklen_t len;
	ssize_t n;
	int fd;

	me.sin_port = htons(atoi(port));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)))
		die("bind");
	for (;;) {
		len = sizeof(peer);
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&peer, &len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			die("recvfrom");
		if (n == 0)
			break;
		if (n == ACK)
			continue;
		if (acked && n != PROBE &&
		    sendto(fd, buf, ACK, 0, (struct sockaddr *)&peer, len) != ACK)
			die("sendto");
		if (sendto(fd, buf, n, 0, (struct sockaddr *)&peer, len) != n)
			die("sendto");
	}
	close(fd);
	return 0;
}

/* wait for the server: a probe every 100 ms, for 10 s at most */
static void probe(int fd)
{
	long long sent;
	int i;

	for (i = 0; i < PROBES; i++) {
		/* refused until the server is bound: try again */
		send(fd, buf, PROBE, 0);
		sent = now_ns();
		do {
			if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) == PROBE)
				return;
		} while (now_ns() - sent < PROBE_NS);
	}
	errno = ETIMEDOUT;
	die("no server");
}

/* wait for a datagram of SIZE bytes; a late probe's echo is passed over */
static void await(int fd, size_t size, long long start)
{
	ssize_t n;

	do {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == (ssize_t)size)
			return;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			die("recv");
	} while (now_ns() - start < WAIT_NS);
	errno = ETIMEDOUT;
	die("no answer");
}

/* one round trip of SIZE bytes, in ns */
static long long round_trip(int fd, size_t size)
{
	long long start = now_ns();

	if (send(fd, buf, size, 0) != (ssize_t)size)
		die("send");
	if (acked)
		await(fd, ACK, start);
	await(fd, size, start);
	if (acked && send(fd, buf, ACK, 0) != ACK)
		die("send");
	return now_ns() - start;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static int ping(const char *host, const char *port, size_t size, long iters)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_DGRAM };
	struct addrinfo *ai;
	long i, warm = iters / 10, counted = iters - warm;
	long long *rtt, sum = 0;
	int fd, err;

	err = getaddrinfo(host, port, &hints, &ai);
	if (err) {
		fprintf(stderr, "udp_pingpong: %s: %s\n", host, gai_strerror(err));
		exit(1);
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen))
		die("connect");
	freeaddrinfo(ai);
	probe(fd);
	rtt = calloc(counted, sizeof(*rtt));
	if (!rtt)
		die("calloc");
	memset(buf, 0x5a, size);
	for (i = 0; i < iters; i++) {
		long long t = round_trip(fd, size);

		if (i >= warm)
			rtt[i - warm] = t;
	}
	/* the empty datagram that ends the server, in case one is lost */
	for (i = 0; i < ENDS; i++)
		send(fd, buf, 0, 0);
	close(fd);
	qsort(rtt, counted, sizeof(*rtt), cmp_ll);
	for (i = 0; i < counted; i++)
		sum += rtt[i];
	printf(" %zu %ld %.2f %.2f %.2f %.2f\n", size, iters,
	       rtt[0] / 2000.0, rtt[counted - 1] / 2000.0,
	       rtt[counted / 2] / 2000.0, (double)sum / counted / 2000.0);
	free(rtt);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "-a")) {
		acked = 1;
		argc--;
		argv++;
	}
	if (argc == 3 && !strcmp(argv[1], "-s"))
		return serve(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "-c")) {
		size_t size = strtoul(argv[4], NULL, 0);
		long iters = strtol(argv[5], NULL, 0);

		if (size < MIN_SIZE || size > MAX_SIZE || iters < 10) {
			fprintf(stderr, "udp_pingpong: SIZE %d to %d, ITERS >= 10\n",
				MIN_SIZE, MAX_SIZE);
			return 2;
		}
		return ping(argv[2], argv[3], size, iters);
	}
	fprintf(stderr, "usage: udp_pingpong [-a] -s PORT\n"
		"       udp_pingpong [-a] -c HOST PORT SIZE ITERS\n");
	return 2;
}
