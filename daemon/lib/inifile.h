/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The INI files of roceccd (its configuration, the rank map) read with inih
 * (Debian's libinih-dev), one way for both: the text is handed to inih a
 * line at a time so that every message names the line of its key; an
 * indented line (inih would take it as the continuation of the previous
 * value), a line longer than inih's buffer takes (197 characters) and a NUL
 * character are errors; only the first error is kept. Messages read
 * "NAME:LINE: [SECTION] KEY: what is wrong", without ":LINE" where there is
 * no line and without "[SECTION] KEY: " where there is no key. Pure logic
 * but for ini_read_file(); unit-tested through test_config.c and
 * test_rankmap.c in selftests/unit/daemon.
 */
#ifndef _ROCECC_LIB_INIFILE_H
#define _ROCECC_LIB_INIFILE_H

#include <stdbool.h>
#include <stddef.h>

struct ini_text {
	/* the caller's */
	const char *name;		/* the file, in messages */
	const char *s;			/* the text not read yet */
	size_t left;			/* its length (it may hold NULs) */
	const char *sections;		/* after "key 'K' outside of a
					 * section ": the known ones */
	/* Each key of a section: report what is wrong with ini_text_err(). */
	void (*key)(struct ini_text *t, const char *section, const char *name,
		    const char *value);
	/* Each "[section]" line, NULL: none (the keys say it). */
	void (*section)(struct ini_text *t, const char *name);
	void *user;
	char *msg;			/* the first error's message */
	size_t msglen;
	/* ini_text_parse()'s */
	unsigned int lineno;		/* of the line inih is at */
	bool indented;
	int err;			/* the first error */
	unsigned int err_line;
};

/*
 * Parse @t's text. 0 (and @t->msg ""), or the first error, a negative errno
 * (-EINVAL for bad content, -ENOMEM), with its message in @t->msg.
 */
int ini_text_parse(struct ini_text *t);

/*
 * Record an error @err of @line (0: none) unless one is recorded already:
 * "NAME:LINE: [@section] @key: " (@section or @key NULL: without them)
 * and the message.
 */
void ini_text_err(struct ini_text *t, int err, unsigned int line,
		  const char *section, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * The whole file @path into *@text (malloc'ed, NUL-terminated; free it)
 * and *@len. 0, or a negative errno with "PATH: cannot open: REASON" or
 * "PATH: cannot read: REASON" in @err.
 */
int ini_read_file(const char *path, char **text, size_t *len, char *err,
		  size_t errlen);

#endif /* _ROCECC_LIB_INIFILE_H */
