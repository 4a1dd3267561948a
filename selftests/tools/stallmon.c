// SPDX-License-Identifier: GPL-2.0
/*
 * stallmon - how long a (TCG) guest's CPUs stop running, and when counters
 * moved, on one clock.
 *
 *   stallmon [-t MS] [-i US] [-p MS] [FILE...]
 *
 * Two threads per online CPU, pinned to it, one SCHED_FIFO (priority 50)
 * when allowed, one of the default policy (what ksoftirqd and ordinary
 * processes get), sleep -i (1000) us at a time on CLOCK_MONOTONIC; a
 * wake-up more than -t (20) ms after the previous one is a stall of that
 * CPU:
 *   stall CPU START_MS GAP_MS       (a SCHED_FIFO thread's)
 *   ostall CPU START_MS GAP_MS      (a default-policy thread's)
 * (START_MS: the previous wake-up, CLOCK_MONOTONIC ms). Where SCHED_FIFO
 * is refused (no CAP_SYS_NICE, RLIMIT_RTPRIO 0), stderr says so once and
 * both threads of a CPU run the default policy: there are no "stall"
 * lines then. Every -p (5) ms the main thread reads each FILE (a counter:
 * sysfs, one number) and, when it changed since the last read:
 *   ctr FILE T_MS OLD NEW
 * First, once every thread runs, one line per thread, then "start T_MS":
 *   thread CPU fifo|other
 * and on SIGTERM or SIGINT "end T_MS", then per thread:
 *   cpu CPU fifo|other WAKEUPS MAX_GAP_MS
 * Lines are written whole, at once, to stdout (line-buffered). Bad
 * arguments: exit status 2, stderr names the argument.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STALLMON_MAX_CPUS	64
#define STALLMON_MAX_FILES	32

struct cpu_mon {
	pthread_t th;
	int cpu;
	int fifo;		/* SCHED_FIFO (if refused: cleared), or not */
	unsigned long wakeups;
	long long max_gap_ns;
};

static volatile sig_atomic_t stop;
static long long thresh_ns = 20000000LL;
static long interval_ns = 1000000L;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int fifo_refused;	/* under out_lock: said once on stderr */
static pthread_barrier_t ready;	/* every thread pinned, its policy set */

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void *cpu_loop(void *arg)
{
	struct cpu_mon *m = arg;
	struct sched_param sp = { .sched_priority = 50 };
	struct timespec d = { .tv_sec = 0, .tv_nsec = interval_ns };
	long long prev, t;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(m->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (m->fifo) {
		int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

		if (err) {
			m->fifo = 0;
			pthread_mutex_lock(&out_lock);
			if (!fifo_refused++)
				fprintf(stderr, "stallmon: SCHED_FIFO refused (%s): every thread runs the default policy, stalls print as ostall\n",
					strerror(err));
			pthread_mutex_unlock(&out_lock);
		}
	}
	pthread_barrier_wait(&ready);
	prev = now_ns();
	while (!stop) {
		nanosleep(&d, NULL);
		t = now_ns();
		m->wakeups++;
		if (t - prev > m->max_gap_ns)
			m->max_gap_ns = t - prev;
		if (t - prev > thresh_ns) {
			pthread_mutex_lock(&out_lock);
			printf("%s %d %.3f %.3f\n", m->fifo ? "stall" : "ostall",
			       m->cpu, prev / 1e6,
			       (t - prev) / 1e6);
			pthread_mutex_unlock(&out_lock);
		}
		prev = t;
	}
	return NULL;
}

static int read_ctr(const char *path, long long *v)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*v = strtoll(buf, NULL, 10);
	return 0;
}

/*
 * The value of option -@opt, @arg: an integer from @min to @max (@unit),
 * or exit 2 with a message that names the option and the value.
 */
static long long arg_num(int opt, const char *arg, long long min,
			 long long max, const char *unit)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "stallmon: -%c '%s': want %lld to %lld (%s)\n",
			opt, arg, min, max, unit);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static struct cpu_mon mon[STALLMON_MAX_CPUS];
	long long last[STALLMON_MAX_FILES], v;
	struct sigaction sa;
	struct timespec pd;
	long poll_ms = 5;
	int ncpu = 0, nf, c, i;
	cpu_set_t online;

	while ((c = getopt(argc, argv, "t:i:p:")) != -1) {
		switch (c) {
		case 't':
			thresh_ns = arg_num(c, optarg, 1, 3600000, "ms") *
				    1000000LL;
			break;
		case 'i':
			interval_ns = arg_num(c, optarg, 1, 999999, "us") * 1000L;
			break;
		case 'p':
			poll_ms = arg_num(c, optarg, 1, 3600000, "ms");
			break;
		default:
			fprintf(stderr, "usage: stallmon [-t MS] [-i US] [-p MS] [FILE...]\n");
			return 2;
		}
	}
	nf = argc - optind;
	if (nf > STALLMON_MAX_FILES) {
		fprintf(stderr, "stallmon: %d FILEs ('%s' and on): at most %d\n",
			nf, argv[optind + STALLMON_MAX_FILES],
			STALLMON_MAX_FILES);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (i = 0; i < nf; i++)
		if (read_ctr(argv[optind + i], &last[i]))
			last[i] = -1;
	if (sched_getaffinity(0, sizeof(online), &online)) {
		perror("stallmon: sched_getaffinity");
		return 1;
	}
	for (i = 0; i < CPU_SETSIZE && ncpu < STALLMON_MAX_CPUS; i++) {
		if (!CPU_ISSET(i, &online))
			continue;
		for (c = 0; c < 2 && ncpu < STALLMON_MAX_CPUS; c++) {
			mon[ncpu].cpu = i;
			mon[ncpu].fifo = !c;
			ncpu++;
		}
	}
	errno = pthread_barrier_init(&ready, NULL, ncpu + 1);
	if (errno) {
		perror("stallmon: pthread_barrier_init");
		return 1;
	}
	for (i = 0; i < ncpu; i++) {
		errno = pthread_create(&mon[i].th, NULL, cpu_loop, &mon[i]);
		if (errno) {
			perror("stallmon: pthread_create");
			return 1;
		}
	}
	pthread_barrier_wait(&ready);
	for (i = 0; i < ncpu; i++)
		printf("thread %d %s\n", mon[i].cpu,
		       mon[i].fifo ? "fifo" : "other");
	printf("start %.3f\n", now_ns() / 1e6);
	pd.tv_sec = poll_ms / 1000;
	pd.tv_nsec = (poll_ms % 1000) * 1000000L;
	while (!stop) {
		nanosleep(&pd, NULL);
		for (i = 0; i < nf; i++) {
			if (read_ctr(argv[optind + i], &v) || v == last[i])
				continue;
			pthread_mutex_lock(&out_lock);
			printf("ctr %s %.3f %lld %lld\n", argv[optind + i],
			       now_ns() / 1e6, last[i], v);
			pthread_mutex_unlock(&out_lock);
			last[i] = v;
		}
	}
	printf("end %.3f\n", now_ns() / 1e6);
	for (i = 0; i < ncpu; i++) {
		pthread_join(mon[i].th, NULL);
		printf("cpu %d %s %lu %.3f\n", mon[i].cpu,
		       mon[i].fifo ? "fifo" : "other", mon[i].wakeups,
		       mon[i].max_gap_ns / 1e6);
	}
	return 0;
}
