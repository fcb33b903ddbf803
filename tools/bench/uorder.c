// SPDX-License-Identifier: GPL-2.0
/*
 * uorder: an ordered pipeline from userspace in the bench VM. One thread per
 * CPU takes the next item, does a small parallel step on it (fills SIZE
 * bytes from its sequence number with 64 multiply-adds per 8 bytes, at most
 * 64 rounds), and the items reach a file strictly in input order, one write
 * per item:
 *
 *	uorder tempo SIZE   /dev/tempo: TEMPO_IOC_ORDER_TICKET (TICKETS at a
 *			    time with TEMPO_TICKET_MANY, where the kernel has
 *			    it), the step, TEMPO_IOC_ORDER_SUBMIT with the data;
 *			    the sink (TEMPO_IOC_ORDER_SINK) is the file,
 *			    written by the submitting threads inside their
 *			    calls; a final TEMPO_IOC_ORDER_FLUSH
 *	uorder user SIZE    the same pipeline without tempo: a sequence number
 *			    from an atomic counter, a reorder buffer of WINDOW
 *			    slots (the file's ordering window) under a mutex,
 *			    and whoever fills the oldest slot write()s every
 *			    consecutive ready item, as a userspace program would
 *
 * The file is on the guest's tmpfs; it is read back afterwards and every
 * item checked in place (its sequence number leads it), so neither side can
 * pass by reordering or dropping. One result line, in tempo_bench's format:
 *	name=u_order system=S size=SIZE items=N threads=T value=V unit=items/s
 * Exit status 77 when /dev/tempo has no ordered stream.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "uapi/tempo.h"

#define ITEMS		8192
#define WINDOW		1024	/* /dev/tempo's default order_window */
#define MAX_THREADS	16
#define OUT		"/tmp/uorder.out"
#define TICKETS		16	/* taken at once, with TEMPO_TICKET_MANY */

static unsigned int size, nthreads, tickets_at_once = 1;
static int out_fd, tempo_fd;
static char *bufs[MAX_THREADS];

/* user: the reorder buffer */
static pthread_mutex_t rob_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_seq, rob_head;
static char *rob_data;			/* WINDOW slots of size bytes */
static unsigned char rob_ready[WINDOW];
static int errors;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "uorder: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The parallel step: the item's bytes from its sequence number. */
static void step(char *buf, uint64_t seq)
{
	uint64_t x = seq + 1;
	unsigned int i, k;

	for (k = 0; k < 64; k++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	for (i = 4; i + 8 <= size && i < 4 + 64 * 8; i += 8) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		memcpy(buf + i, &x, 8);
	}
	if (size > 4 + 64 * 8)
		memset(buf + 4 + 64 * 8, (int)x, size - 4 - 64 * 8);
	memcpy(buf, &(uint32_t){ (uint32_t)seq }, 4);
}

static void *tempo_thread(void *arg)
{
	char *buf = bufs[(uintptr_t)arg];
	bool done = false;

	while (!done) {
		struct tempo_ticket tk = { 0 };
		uint64_t t, n = 1;

		if (tickets_at_once > 1) {
			tk.flags = TEMPO_TICKET_MANY;
			tk.count = tickets_at_once;
		}
		if (ioctl(tempo_fd, TEMPO_IOC_ORDER_TICKET, &tk))
			die("TEMPO_IOC_ORDER_TICKET");
		if (tickets_at_once > 1)
			n = tk.count;
		for (t = tk.ticket; t < tk.ticket + n; t++) {
			struct tempo_submit sb = { .ticket = t, .data = (uintptr_t)buf, .len = size };
			struct tempo_ticket tr = { .ticket = t };

			if (t >= ITEMS) {
				/* Past the end: given back. */
				if (ioctl(tempo_fd, TEMPO_IOC_ORDER_TRASH, &tr))
					die("TEMPO_IOC_ORDER_TRASH");
				done = true;
				continue;
			}
			step(buf, t);
			if (ioctl(tempo_fd, TEMPO_IOC_ORDER_SUBMIT, &sb))
				die("TEMPO_IOC_ORDER_SUBMIT");
		}
	}
	return NULL;
}

static void *user_thread(void *arg)
{
	(void)arg;
	for (;;) {
		uint64_t seq = __atomic_fetch_add(&next_seq, 1, __ATOMIC_RELAXED);
		unsigned int slot = seq % WINDOW;

		if (seq >= ITEMS)
			return NULL;
		/* The window: never more than WINDOW items ahead of the oldest. */
		while (seq - __atomic_load_n(&rob_head, __ATOMIC_ACQUIRE) >= WINDOW)
			sched_yield();
		step(rob_data + (size_t)slot * size, seq);
		pthread_mutex_lock(&rob_lock);
		rob_ready[slot] = 1;
		while (rob_ready[rob_head % WINDOW]) {
			unsigned int h = rob_head % WINDOW;

			if (write(out_fd, rob_data + (size_t)h * size, size) != (ssize_t)size)
				errors++;
			rob_ready[h] = 0;
			__atomic_store_n(&rob_head, rob_head + 1, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&rob_lock);
	}
}

/* Every item in place, in order. */
static int verify(void)
{
	char *buf = malloc(size), *want = malloc(size);
	uint64_t i;
	int bad = 0;

	if (!buf || !want || lseek(out_fd, 0, SEEK_SET))
		die("verify");
	for (i = 0; i < ITEMS && !bad; i++) {
		if (read(out_fd, buf, size) != (ssize_t)size)
			bad = 1;
		step(want, i);
		if (memcmp(buf, want, size))
			bad = 1;
	}
	if (bad)
		fprintf(stderr, "uorder: item %llu missing or out of order\n",
			(unsigned long long)(i - 1));
	free(buf);
	free(want);
	return bad;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	bool tempo;
	uint64_t t0, t1;
	unsigned int i;

	if (argc != 3 || (strcmp(argv[1], "tempo") && strcmp(argv[1], "user")))
		return fprintf(stderr, "usage: uorder tempo|user SIZE\n"), 2;
	tempo = !strcmp(argv[1], "tempo");
	size = atoi(argv[2]);
	if (size < 4 || size > 65536)
		return fprintf(stderr, "uorder: SIZE is 4..65536\n"), 2;
	nthreads = sysconf(_SC_NPROCESSORS_ONLN);
	if (nthreads < 1 || nthreads > MAX_THREADS)
		nthreads = nthreads < 1 ? 1 : MAX_THREADS;
	for (i = 0; i < nthreads; i++)
		if (!(bufs[i] = malloc(size)))
			die("malloc");
	out_fd = open(OUT, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (out_fd < 0)
		die(OUT);

	if (tempo) {
		struct tempo_sink sk = { .fd = out_fd };
		struct tempo_info info = { 0 };

		tempo_fd = open("/dev/tempo", O_RDWR);
		if (tempo_fd < 0)
			die("/dev/tempo");
		if (ioctl(tempo_fd, TEMPO_IOC_INFO, &info) ||
		    !(info.features & TEMPO_FEAT_SINK) || !(info.features & TEMPO_FEAT_USER_LIMITS))
			return fprintf(stderr, "uorder: no ordered sink\n"), 77;
		if (info.features & TEMPO_FEAT_TICKET_MANY)
			tickets_at_once = TICKETS;
		if (ioctl(tempo_fd, TEMPO_IOC_ORDER_SINK, &sk))
			die("TEMPO_IOC_ORDER_SINK");
	} else {
		rob_data = calloc(WINDOW, size);
		if (!rob_data)
			die("calloc");
	}

	t0 = now_ns();
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, tempo ? tempo_thread : user_thread,
				   (void *)(uintptr_t)i))
			die("pthread_create");
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	if (tempo && ioctl(tempo_fd, TEMPO_IOC_ORDER_FLUSH))
		die("TEMPO_IOC_ORDER_FLUSH");
	t1 = now_ns();

	if (tempo) {
		struct tempo_stats st = { 0 };

		if (ioctl(tempo_fd, TEMPO_IOC_STATS, &st))
			die("TEMPO_IOC_STATS");
		errors += st.ctx.sink_errors;
	}
	if (errors || verify()) {
		fprintf(stderr, "uorder: %d write errors or a bad file\n", errors);
		return 1;
	}
	printf("name=u_order system=%s size=%u items=%u threads=%u value=%.0f unit=items/s\n",
	       argv[1], size, ITEMS, nthreads, ITEMS * 1e9 / (t1 - t0));
	close(out_fd);
	unlink(OUT);
	return 0;
}
