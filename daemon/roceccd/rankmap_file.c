// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: reading the rank map file. See rankmap_file.h.
 */
#include <stdlib.h>

#include "lib/inifile.h"
#include "rankmap_file.h"

int rd_rankmap_load(struct rankmap *m, const char *path, char *err,
		    size_t errlen)
{
	size_t len;
	char *text;
	int ret;

	ret = ini_read_file(path, &text, &len, err, errlen);
	if (ret)
		return ret;
	ret = rankmap_parse(m, path, text, len, err, errlen);
	free(text);
	return ret;
}
