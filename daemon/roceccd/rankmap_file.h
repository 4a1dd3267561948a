/* SPDX-License-Identifier: GPL-2.0 */
/*
 * roceccd: the rank map file ([rankmap] file) read for policy/rankmap.c,
 * which parses it without I/O. Unit-tested by
 * selftests/unit/daemon/test_rankmap.c.
 */
#ifndef _ROCECC_ROCECCD_RANKMAP_FILE_H
#define _ROCECC_ROCECCD_RANKMAP_FILE_H

#include <stddef.h>

#include "policy/rankmap.h"

/*
 * Load the rank map file @path into @m, as rankmap_parse() does with its
 * text. 0, or a negative errno with a message naming @path (and line and
 * key) in @err: -EINVAL for bad content, -ENOMEM, or the errno of opening
 * or reading @path ("PATH: cannot open: REASON", lib/inifile.h).
 */
int rd_rankmap_load(struct rankmap *m, const char *path, char *err,
		    size_t errlen);

#endif /* _ROCECC_ROCECCD_RANKMAP_FILE_H */
