// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: the configuration it runs with: the file (config.c), then the
 * command line over it, and the rank map it names; rebuilt on SIGHUP,
 * where a bad file changes nothing.
 */
#include <arpa/inet.h>
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

/*
 * The command line onto @c (after the config file: flags win). 0, or 2
 * after a message naming the bad option and value. Run again on every
 * reload (getopt is reset), where it cannot fail any more.
 */
int rd_cmdline(struct rd_conf *c, int argc, char **argv,
	       struct rd_cmdline *cl)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "list-metrics", no_argument, NULL, 'M' },
		{ "listen", required_argument, NULL, 'l' },
		{ "port", required_argument, NULL, 'p' },
		{ "interval", required_argument, NULL, 'i' },
		{ "linger", required_argument, NULL, 'g' },
		{ "buckets-per-octave", required_argument, NULL, 'b' },
		{ "pin-dir", required_argument, NULL, 'd' },
		{ "datapath", required_argument, NULL, 'D' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "log-level", required_argument, NULL, 'L' },
		{ "pidfile", required_argument, NULL, 'P' },
		{ "hw-root", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct in6_addr a6;
	struct in_addr a4;
	int o, err;

	memset(cl, 0, sizeof(*cl));
	optind = 0;	/* glibc: start over */
	while ((o = getopt_long(argc, argv, "c:l:p:i:fL:h", opts, NULL)) != -1) {
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
		case 'l':
			if (inet_pton(AF_INET, optarg, &a4) != 1 &&
			    inet_pton(AF_INET6, optarg, &a6) != 1)
				return bad_arg("--listen", optarg,
					       "is not an IPv4 or IPv6 address");
			if (strlen(optarg) >= sizeof(c->listen))
				return bad_arg("--listen", optarg, "is too long");
			snprintf(c->listen, sizeof(c->listen), "%s", optarg);
			break;
		case 'p':
			if (rd_parse_port(optarg, &c->port))
				return bad_arg("--port", optarg,
					       "is not a TCP port (1..65535)");
			break;
		case 'i':
		case 'g':
			err = rd_parse_ms(optarg, o == 'i' ? &c->interval_ms :
							     &c->linger_ms);
			if (err)
				return bad_arg(o == 'i' ? "--interval" : "--linger",
					       optarg, err == -ERANGE ?
					       "is out of range (1ms .. 1 day)" :
					       "is not a time (seconds, or 250ms, 2s)");
			break;
		case 'b': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !*optarg || !rd_valid_per_octave((unsigned int)v))
				return bad_arg("--buckets-per-octave", optarg,
					       "is not 1, 2, 4, 8 or 16");
			c->per_octave = (unsigned int)v;
			break;
		}
		case 'd':
			if (!strcmp(optarg, "none")) {
				c->pin_dir[0] = '\0';
				break;
			}
			if (optarg[0] != '/' || strlen(optarg) >= sizeof(c->pin_dir))
				return bad_arg("--pin-dir", optarg,
					       "is not an absolute path (or none)");
			snprintf(c->pin_dir, sizeof(c->pin_dir), "%s", optarg);
			break;
		case 'D':
			c->dp_engine = rd_engine_parse(optarg);
			if (c->dp_engine < 0)
				return bad_arg("--datapath", optarg,
					       "is not none, module, bpf or auto");
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
		case 'L':
			c->log_level = rd_log_level(optarg);
			if (c->log_level < 0)
				return bad_arg("--log-level", optarg,
					       "is not error, warn, info or debug");
			break;
		case 'h':
			cl->help = true;
			return 0;
		default:
			return 2;
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
		{
			char je[600];

			rd_event(rd, "config_refused", "\"error\":%s",
				 rd_jstr(err, je, sizeof(je)));
		}
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
	{
		char jp[300];

		rd_event(rd, "config_reloaded", "\"file\":%s,\"generation\":%u",
			 rd_jstr(rd->conf_path ? rd->conf_path : "", jp, sizeof(jp)),
			 rd->conf_gen);
	}
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
