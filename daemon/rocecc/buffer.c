// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc buffer show | set: DCB buffers over DCB netlink. See dcb.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "dcb.h"
#include "lib/dcbnl.h"
#include "lib/format.h"
#include "lib/parse.h"

static void buffer_print(const struct cli_pfc_opts *o, const char *dev,
			 const struct dcbnl_buffer *b)
{
	char sz[32], prios[32];
	uint8_t m;
	int i, j;

	if (o->json) {
		json_object *obj = json_object_new_object();
		json_object *p2b = json_object_new_array();
		json_object *s = json_object_new_array();

		json_object_object_add(obj, "ifname", rd_json_str(dev));
		for (i = 0; i < DCBNL_PRIOS; i++)
			json_object_array_add(p2b, json_object_new_int(b->prio2buffer[i]));
		for (i = 0; i < DCBNL_BUFFERS; i++)
			json_object_array_add(s, json_object_new_int64(b->buffer_size[i]));
		json_object_object_add(obj, "prio_buffer", p2b);
		json_object_object_add(obj, "buffer_size", s);
		json_object_object_add(obj, "total_size",
				       json_object_new_int64(b->total_size));
		dcb_json_print(o, obj);
		return;
	}
	printf("%s: total_size %s\n", dev,
	       dcbnl_size_str(b->total_size, sz, sizeof(sz)));
	printf("  prio-buffer");
	for (i = 0; i < DCBNL_PRIOS; i++)
		printf(" %d:%u", i, b->prio2buffer[i]);
	printf("\n  %-6s %12s  %s\n", "BUFFER", "SIZE", "PRIOS");
	for (i = 0; i < DCBNL_BUFFERS; i++) {
		for (j = 0, m = 0; j < DCBNL_PRIOS; j++)
			if (b->prio2buffer[j] == i)
				m |= 1u << j;
		printf("  %-6d %12u  %s\n", i, b->buffer_size[i],
		       m ? dcbnl_prio_str(m, prios, sizeof(prios)) : "-");
	}
}

static int buffer_show(const struct cli_pfc_opts *o, int argc, char **argv)
{
	struct dcbnl_buffer b;
	struct dcbnl *h;
	const char *dev;
	int ret, err;

	ret = dcb_want_dev("buffer show", argc, argv, &dev);
	if (ret)
		return ret;
	if (argc > 2)
		return dcb_usage_err("buffer show", "unexpected '%s'", argv[2]);
	ret = dcb_open("buffer show", &h);
	if (ret)
		return ret;
	err = dcbnl_get_buffer(h, dev, &b);
	if (err)
		ret = dcb_err("buffer show", dev, h, err);
	else
		buffer_print(o, dev, &b);
	dcbnl_close(h);
	return ret;
}

static const char *const buf_words[] = { "prio-buffer", "buffer-size", NULL };

static int buffer_set(int argc, char **argv)
{
	static const char cmd[] = "buffer set";
	struct dcbnl_buffer b, back;
	uint8_t p2b[DCBNL_PRIOS], pmask = 0, smask = 0;
	uint32_t size[DCBNL_BUFFERS];
	struct dcbnl_perr pe;
	char val[256];
	const char *dev, *v;
	struct dcbnl *h;
	int ret, err, i;

	ret = dcb_want_dev(cmd, argc, argv, &dev);
	if (ret)
		return ret;
	for (i = 2; i < argc; i++) {
		const char *kw = argv[i];

		if (!strcmp(kw, "prio-buffer")) {
			v = dcb_take(argc, argv, &i, true, buf_words, val, sizeof(val));
			if (!v)
				return dcb_usage_err(cmd, "'prio-buffer' needs PRIO:BUFFER[,...]");
			if (dcbnl_parse_prio2buffer(v, p2b, &pmask, &pe))
				return dcb_usage_err(cmd, "'prio-buffer %s': %s", pe.item, pe.why);
		} else if (!strcmp(kw, "buffer-size")) {
			v = dcb_take(argc, argv, &i, true, buf_words, val, sizeof(val));
			if (!v)
				return dcb_usage_err(cmd, "'buffer-size' needs BUFFER:SIZE[,...]");
			if (dcbnl_parse_buffer_sizes(v, size, &smask, &pe))
				return dcb_usage_err(cmd, "'buffer-size %s': %s", pe.item, pe.why);
		} else {
			return dcb_usage_err(cmd, "unknown '%s' (prio-buffer or buffer-size)", kw);
		}
	}
	if (!pmask && !smask)
		return dcb_usage_err(cmd, "nothing to set (prio-buffer or buffer-size)");

	ret = dcb_open(cmd, &h);
	if (ret)
		return ret;
	err = dcbnl_get_buffer(h, dev, &b);
	if (err) {
		ret = dcb_err(cmd, dev, h, err);
		goto out;
	}
	for (i = 0; i < DCBNL_PRIOS; i++)
		if (pmask & 1u << i)
			b.prio2buffer[i] = p2b[i];
	for (i = 0; i < DCBNL_BUFFERS; i++)
		if (smask & 1u << i)
			b.buffer_size[i] = size[i];
	err = dcbnl_set_buffer(h, dev, &b);
	if (err) {
		ret = dcb_err(cmd, dev, h, err);
		goto out;
	}
	err = dcbnl_get_buffer(h, dev, &back);
	if (err) {
		ret = dcb_err("buffer set: reading back", dev, h, err);
		goto out;
	}
	for (i = 0; i < DCBNL_PRIOS; i++)
		if ((pmask & 1u << i) && back.prio2buffer[i] != b.prio2buffer[i]) {
			fprintf(stderr, "rocecc: buffer set: %s: priority %d reads back in buffer %u, not %u\n",
				dev, i, back.prio2buffer[i], b.prio2buffer[i]);
			ret = CLI_EXIT_FAIL;
		}
	for (i = 0; i < DCBNL_BUFFERS; i++)
		if ((smask & 1u << i) && back.buffer_size[i] != b.buffer_size[i]) {
			/* drivers round to their cells: say so, not fail */
			fprintf(stderr, "rocecc: buffer set: %s: buffer %d reads back %u bytes (asked %u; the device rounds)\n",
				dev, i, back.buffer_size[i], b.buffer_size[i]);
		}
out:
	dcbnl_close(h);
	return ret;
}

int cli_buffer(const struct cli_pfc_opts *o, int argc, char **argv)
{
	if (argc < 1)
		return dcb_usage_err("buffer", "expected show or set");
	if (cli_matches(argv[0], "show"))
		return buffer_show(o, argc - 1, argv + 1);
	if (cli_matches(argv[0], "set"))
		return buffer_set(argc - 1, argv + 1);
	return dcb_usage_err("buffer", "unknown command '%s' (show, set)", argv[0]);
}
