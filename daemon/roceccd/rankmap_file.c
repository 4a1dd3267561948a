// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: reading the rank map file. See rankmap_file.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rankmap_file.h"

int rd_rankmap_load(struct rankmap *m, const char *path, char *err,
		    size_t errlen)
{
	char chunk[4096], *text = NULL, *p;
	size_t len = 0, n;
	FILE *f;
	int ret;

	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		if (errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	/* A read error ends the text as the end of the file does. */
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		p = realloc(text, len + n);
		if (!p) {
			fclose(f);
			free(text);
			if (errlen)
				snprintf(err, errlen, "%s: %s", path,
					 strerror(ENOMEM));
			return -ENOMEM;
		}
		memcpy(p + len, chunk, n);
		text = p;
		len += n;
	}
	fclose(f);
	ret = rankmap_parse(m, path, text ? text : "", len, err, errlen);
	free(text);
	return ret;
}
