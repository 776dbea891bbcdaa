/* SPDX-License-Identifier: MIT */
/*
 * reports/escape.h: writing untrusted text into each output format.
 *
 * Everything a report or a query prints that did not come from Divergence
 * itself - plugin names and versions, error texts and notes, case ids,
 * paths, command lines, host names - goes through one of these. Each reads
 * `text` as UTF-8: a byte sequence that is not valid UTF-8 is written as
 * U+FFFD, and so is every character the format cannot hold (what
 * harness/base/text.h calls unsafe: C0, C1 and bidirectional controls,
 * DEL, U+FFFE, U+FFFF). NULL writes nothing (esc_json: null).
 * Nothing here fails; write errors show in ferror(f).
 */
#ifndef REPORTS_ESCAPE_H
#define REPORTS_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* HTML text and double- or single-quoted attribute values: & < > " '
 * as character references. */
void esc_html(FILE *f, const char *text);

/* XML 1.0 text and attribute values: & < > " ' as references, tab,
 * newline and carriage return as &#9; &#10; &#13; (kept in attributes). */
void esc_xml(FILE *f, const char *text);

/* A JSON string with its quotes; < > & U+2028 U+2029 as \u escapes too,
 * so the text is also safe inside an HTML <script> or attribute. */
void esc_json(FILE *f, const char *text);

/* Markdown (CommonMark / GitHub) inline text, safe inside table cells:
 * \ ` * _ [ ] | # ! ~ backslash-escaped, < > & as references, line breaks
 * as spaces. The text must not start a line (it goes after "- ", "| ",
 * "## "). */
void esc_md(FILE *f, const char *text);

/* Text as it is (code blocks, where no escape works): only the characters
 * no format holds become U+FFFD; line breaks stay. */
void esc_plain(FILE *f, const char *text);

/* A terminal: C0 controls, DEL and invalid bytes as \xNN, C1 and
 * bidirectional controls as \uNNNN, backslash as \\, so no text can move
 * the cursor, change colours or reorder a line. */
void esc_term(FILE *f, const char *text);

/* One POSIX shell word: as it is when it holds only [A-Za-z0-9_./:=@%+,-]
 * (and is not empty), else single-quoted. Writes into buf (len bytes,
 * always NUL-terminated) and returns buf; 0 in *truncated (may be NULL)
 * when it fit. */
const char *esc_shell_word(const char *text, char *buf, size_t len, int *truncated);

#endif /* REPORTS_ESCAPE_H */
