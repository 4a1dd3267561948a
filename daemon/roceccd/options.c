// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: the configuration it runs with: the file (config.c), then the
 * command line over it, and the rank map it names; rebuilt on SIGHUP,
 * where a bad file changes nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>
#include <systemd/sd-daemon.h>

#include "lib/parse.h"
#include "rankmap_file.h"
#include "roceccd.h"

static int bad_arg(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "%s: %s: '%s' %s\n", rd_prog, opt, val, why);
	return 2;
}

/* getopt_long()'s value of config flag @i: its letter, or past a char. */
#define FLAG_VAL(i, letter)	((letter) ? (letter) : 256 + (int)(i))
#define MAX_FLAGS		16

/*
 * The options: ours, then the flags that set a config key (config.c's
 * table), into @opts and @shortopts.
 */
static void rd_options(struct option *opts, char *shortopts)
{
	static const struct option own[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "list-metrics", no_argument, NULL, 'M' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "pidfile", required_argument, NULL, 'P' },
		{ "hw-root", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
	};
	const char *name;
	unsigned int i, n = sizeof(own) / sizeof(own[0]);
	int letter;
	char *p;

	memcpy(opts, own, sizeof(own));
	p = shortopts + sprintf(shortopts, "c:fh");
	for (i = 0; i < MAX_FLAGS && (name = rd_conf_flag(i, &letter)); i++) {
		opts[n++] = (struct option){ name, required_argument, NULL,
					     FLAG_VAL(i, letter) };
		if (letter)
			p += sprintf(p, "%c:", letter);
	}
	opts[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* The config flag getopt_long() returned as @o: its number, or -1. */
static int rd_flag_of(int o)
{
	unsigned int i;
	int letter;

	for (i = 0; rd_conf_flag(i, &letter); i++)
		if (o == FLAG_VAL(i, letter))
			return (int)i;
	return -1;
}

/*
 * The command line onto @c (after the config file: flags win). 0, or 2
 * after a message naming the bad option and value. Run again on every
 * reload (getopt is reset), where it cannot fail any more.
 */
int rd_cmdline(struct rd_conf *c, int argc, char **argv,
	       struct rd_cmdline *cl)
{
	struct option opts[8 + MAX_FLAGS];
	char shortopts[8 + 2 * MAX_FLAGS], err[512];
	int o, flag;

	rd_options(opts, shortopts);
	memset(cl, 0, sizeof(*cl));
	optind = 0;	/* glibc: start over */
	while ((o = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			cl->config = optarg;
			break;
		case 'C':
			cl->check = true;
			break;
		case 'M':
			cl->list = true;
			break;
		case 'f':
			cl->foreground = true;
			break;
		case 'P':
			if (optarg[0] != '/')
				return bad_arg("--pidfile", optarg,
					       "is not an absolute path");
			cl->pidfile = optarg;
			break;
		case 'R':
			if (optarg[0] != '/' || strlen(optarg) >= 200)
				return bad_arg("--hw-root", optarg,
					       "is not an absolute path (under 200 bytes)");
			cl->hw_root = optarg;
			break;
		case 'h':
			cl->help = true;
			return 0;
		default:
			flag = rd_flag_of(o);
			if (flag < 0)
				return 2;
			if (rd_conf_set_flag(c, flag, optarg, err, sizeof(err))) {
				fprintf(stderr, "%s: %s\n", rd_prog, err);
				return 2;
			}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", rd_prog, argv[optind]);
		return 2;
	}
	return 0;
}

/*
 * The whole configuration: defaults, the config file (if there is one; a
 * file named with -c must exist), the command line, the cross checks and
 * the rank map. 0, or -errno with the message in @err; nothing of @rd is
 * touched (the caller swaps the result in).
 */
int rd_conf_build(struct rd *rd, struct rd_conf *c, struct rankmap *rm,
		  bool *have_rm, char *err, size_t errlen)
{
	struct rd_cmdline cl;
	const char *path = rd->conf_path;
	int ret;

	*have_rm = false;
	rd_conf_defaults(c);
	if (path && (rd->conf_explicit || !access(path, F_OK))) {
		ret = rd_conf_load(c, path, err, errlen);
		if (ret)
			return ret;
	}
	if (rd_cmdline(c, rd->argc, rd->argv, &cl)) {
		snprintf(err, errlen, "bad command line");
		return -EINVAL;
	}
	ret = rd_conf_check(c, path ? path : "command line", err, errlen);
	if (ret)
		return ret;
	if (c->rankmap_file[0]) {
		ret = rd_rankmap_load(rm, c->rankmap_file, err, errlen);
		if (ret)
			return ret;
		*have_rm = true;
		if (c->local_host[0] && rankmap_host_index(rm, c->local_host) < 0) {
			if (snprintf(err, errlen, "%s: [rankmap] host: '%s' is not a host of %s",
				     path ? path : "command line", c->local_host,
				     c->rankmap_file) >= (int)errlen)
				err[errlen - 1] = '\0';	/* truncated */
			rankmap_free(rm);
			*have_rm = false;
			return -EINVAL;
		}
	}
	return 0;
}

/* SIGHUP: read everything again; a bad file changes nothing. */
void rd_reload(struct rd *rd)
{
	struct rd_conf *c = calloc(1, sizeof(*c));
	struct MHD_Daemon *old = NULL, *d;
	struct rankmap rm;
	bool have_rm;
	char err[512];
	int fd;

	sd_notify(0, "RELOADING=1");
	if (!c) {
		rd_log(LOG_ERR_, "reload: out of memory");
		goto out;
	}
	if (rd_conf_build(rd, c, &rm, &have_rm, err, sizeof(err))) {
		rd_log(LOG_ERR_, "reload refused, the configuration stays as it was: %s", err);
		sd_notifyf(0, "STATUS=reload refused: %s", err);
		pthread_mutex_lock(&rd->lock);
		rd->reload_errors++;
		rd_event(rd, "config_refused", "error", rd_json_str(err), NULL);
		pthread_mutex_unlock(&rd->lock);
		goto out;
	}
	if (strcmp(c->pin_dir, rd->conf.pin_dir)) {
		rd_log(LOG_WARN_, "reload: pin_dir '%s' takes effect at the next start; '%s' stays",
		       c->pin_dir, rd->conf.pin_dir);
		snprintf(c->pin_dir, sizeof(c->pin_dir), "%s", rd->conf.pin_dir);
	}
	if (strcmp(c->listen, rd->conf.listen) || c->port != rd->conf.port) {
		fd = rd_listen(c->listen, c->port);
		d = fd < 0 ? NULL : rd_http_start(rd, fd, c->listen, c->port);
		if (!d) {
			rd_log(LOG_ERR_, "reload: keeping http on %s port %u",
			       rd->conf.listen, rd->conf.port);
			snprintf(c->listen, sizeof(c->listen), "%s", rd->conf.listen);
			c->port = rd->conf.port;
		} else {
			old = rd->httpd;
			rd->httpd = d;
		}
	}
	pthread_mutex_lock(&rd->lock);
	if (rd->have_rmap)
		rankmap_free(&rd->rmap);
	rd->rmap = rm;
	rd->have_rmap = have_rm;
	rd->conf = *c;
	rd->conf_gen++;
	rd_log_max = rd->conf.log_level;
	rd->reloads++;
	rd_rank_hosts(rd);
	rd_event(rd, "config_reloaded",
		 "file", rd_json_str(rd->conf_path ? rd->conf_path : ""),
		 "generation", json_object_new_int64(rd->conf_gen), NULL);
	pthread_mutex_unlock(&rd->lock);
	rd_log(LOG_INFO_, "configuration reloaded from %s (generation %u)",
	       rd->conf_path ? rd->conf_path : "the command line", rd->conf_gen);
	sd_notifyf(0, "STATUS=configuration generation %u", rd->conf_gen);
	if (old)
		MHD_stop_daemon(old);	/* outside the lock: it joins handlers */
out:
	free(c);
	sd_notify(0, "READY=1");
}
