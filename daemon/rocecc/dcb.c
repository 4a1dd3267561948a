// SPDX-License-Identifier: GPL-2.0
/*
 * What rocecc pfc (pfc.c) and rocecc buffer (buffer.c) share: their error
 * messages, JSON output, keyword arguments and the DCB netlink socket.
 * See dcb.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "dcb.h"
#include "lib/dcbnl.h"
#include "lib/parse.h"

int dcb_usage_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rocecc: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_USAGE;
}

int dcb_err(const char *cmd, const char *dev, struct dcbnl *h, int err)
{
	const char *m = dcbnl_errmsg(h);

	if (m[0])
		fprintf(stderr, "rocecc: %s: %s: %s (%s)\n", cmd, dev, m,
			strerror(-err));
	else
		fprintf(stderr, "rocecc: %s: %s: %s\n", cmd, dev, strerror(-err));
	return CLI_EXIT_FAIL;
}

void dcb_json_print(const struct cli_pfc_opts *o, json_object *obj)
{
	json_object *arr = json_object_new_array();

	json_object_array_add(arr, obj);
	printf("%s\n", json_object_to_json_string_ext(arr,
		o->pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN));
	json_object_put(arr);
}

bool dcb_is_word(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return true;
	return false;
}

const char *dcb_take(int argc, char **argv, int *i, bool list,
		     const char *const *keywords, char *buf, size_t n)
{
	size_t len;

	if (*i + 1 >= argc)
		return NULL;
	(*i)++;
	snprintf(buf, n, "%s", argv[*i]);
	if (!list)
		return buf;
	while (*i + 1 < argc && strchr(argv[*i + 1], ':') &&
	       !dcb_is_word(argv[*i + 1], keywords)) {
		(*i)++;
		len = strlen(buf);
		snprintf(buf + len, n - len, ",%s", argv[*i]);
	}
	return buf;
}

int dcb_want_dev(const char *cmd, int argc, char **argv, const char **dev)
{
	if (argc < 2 || strcmp(argv[0], "dev"))
		return dcb_usage_err(cmd, "expected 'dev IF'");
	if (!argv[1][0] || strlen(argv[1]) > 15)
		return dcb_usage_err(cmd, "'dev %s': a netdev name is 1 to 15 characters",
				     argv[1]);
	*dev = argv[1];
	return 0;
}

int dcb_open(const char *cmd, struct dcbnl **h)
{
	int err = dcbnl_open(h);

	if (err) {
		fprintf(stderr, "rocecc: %s: cannot open an rtnetlink socket: %s\n",
			cmd, strerror(-err));
		return CLI_EXIT_FAIL;
	}
	return 0;
}
