// SPDX-License-Identifier: GPL-2.0
/*
 * INI files through inih, one line at a time. See inifile.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "array.h"
#include "inifile.h"

void ini_text_err(struct ini_text *t, int err, unsigned int line,
		  const char *section, const char *key, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;
	int r;

	if (t->err)
		return;
	t->err = err;
	t->err_line = line;
	if (!t->msglen)
		return;
	r = line ? snprintf(t->msg, t->msglen, "%s:%u: ", t->name, line) :
		   snprintf(t->msg, t->msglen, "%s: ", t->name);
	if (r > 0)
		n += r;
	if (section && n < t->msglen) {
		r = snprintf(t->msg + n, t->msglen - n, "[%s] %s%s", section,
			     key ? key : "", key ? ": " : "");
		if (r > 0)
			n += r;
	}
	if (n < t->msglen) {
		va_start(ap, fmt);
		vsnprintf(t->msg + n, t->msglen - n, fmt, ap);
		va_end(ap);
	}
}

#define INDENTED "indented line (inih would read it as a continuation of the previous value)"

/*
 * A "[section]" line: indented, it is an error (a section line is never a
 * continuation); else its name, as inih takes it (everything between '['
 * and the first ']', blanks included), to @t->section. Without a ']' it is
 * inih's syntax error.
 */
static void section_line(struct ini_text *t, const char *line, size_t len)
{
	const char *end;
	char name[256];

	if (t->lineno == 1 && len >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
		line += 3;
		len -= 3;
	}
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (!len || *line != '[')
		return;
	if (t->indented) {
		ini_text_err(t, -EINVAL, t->lineno, NULL, NULL, INDENTED);
		return;
	}
	end = memchr(line, ']', len);
	if (!end || !t->section)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)(end - line - 1), line + 1);
	t->section(t, name);
}

/*
 * inih's reader: one whole line per call, so that t->lineno is the line of
 * the handler's key (inih counts the same way). A line too long for inih's
 * buffer, or with a NUL, is an error and handed over empty.
 */
static char *reader(char *str, int num, void *stream)
{
	struct ini_text *t = stream;
	const char *line, *nl;
	size_t len, text;

	if (!t->left)
		return NULL;
	line = t->s;
	nl = memchr(line, '\n', t->left);
	len = nl ? (size_t)(nl - line + 1) : t->left;
	t->s += len;
	t->left -= len;
	t->lineno++;
	t->indented = len && (line[0] == ' ' || line[0] == '\t');
	for (text = len; text && (line[text - 1] == '\n' ||
				  line[text - 1] == '\r'); text--)
		;
	/* at most num - 3: room for "\r\n" and the NUL in inih's buffer */
	if (num < 3 || text > (size_t)num - 3 || len > (size_t)num - 1 ||
	    memchr(line, '\0', len)) {
		if (memchr(line, '\0', len))
			ini_text_err(t, -EINVAL, t->lineno, NULL, NULL,
				     "NUL character in line");
		else
			ini_text_err(t, -EINVAL, t->lineno, NULL, NULL,
				     "line longer than %d characters", num - 3);
		line = "\n";
		len = 1;
	}
	section_line(t, line, len);
	memcpy(str, line, len);
	str[len] = '\0';
	return str;
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct ini_text *t = user;

	if (t->err)
		return 1;
	if (t->indented)
		ini_text_err(t, -EINVAL, t->lineno, NULL, NULL, INDENTED);
	else if (!*section)
		ini_text_err(t, -EINVAL, t->lineno, NULL, NULL,
			     "key '%s' outside of a section %s", name,
			     t->sections);
	else
		t->key(t, section, name, value);
	return 1;
}

int ini_text_parse(struct ini_text *t)
{
	int ret;

	ret = ini_parse_stream(reader, t, handler, t);
	if (ret == -2) {
		ini_text_err(t, -ENOMEM, 0, NULL, NULL, "%s", strerror(ENOMEM));
	} else if (ret > 0 && (!t->err || (unsigned int)ret < t->err_line)) {
		t->err = 0;	/* inih's syntax error comes first */
		ini_text_err(t, -EINVAL, ret, NULL, NULL,
			     "syntax error (expected \"[section]\" or \"key = value\")");
	}
	if (!t->err && t->msglen)
		t->msg[0] = '\0';
	return t->err;
}

int ini_read_file(const char *path, char **text, size_t *len, char *err,
		  size_t errlen)
{
	size_t cap = 0, n;
	char *buf = NULL, *p;
	FILE *f;
	int ret = 0;

	*text = NULL;
	*len = 0;
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		if (errlen)
			snprintf(err, errlen, "%s: cannot open: %s", path,
				 strerror(-ret));
		return ret;
	}
	errno = 0;
	do {
		p = array_grow(buf, &cap, *len + 4096 + 1, 1);
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		buf = p;
		n = fread(buf + *len, 1, cap - *len - 1, f);
		*len += n;
	} while (n);
	if (!ret && ferror(f))
		ret = errno ? -errno : -EIO;
	fclose(f);
	if (ret) {
		free(buf);
		*len = 0;
		if (errlen)
			snprintf(err, errlen, "%s: cannot read: %s", path,
				 strerror(-ret));
		return ret;
	}
	buf[*len] = '\0';
	*text = buf;
	return 0;
}
