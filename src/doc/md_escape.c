/* md_escape.c — translated text written into Markdown inline content (doc_markdown_escape in
 * doc.h), so that no text the model writes can make markup: whatever s holds, CommonMark (and
 * GitHub's tables, ~~ and ~) reads it back as that text, in a paragraph, a heading, a list
 * item, a block quote or a table cell, at the start of a line or after an element's markup.
 *
 * Within a line:
 *   \ ` * _ [ ] ~ |     a backslash: escapes, code, emphasis, links, strikethrough, cells
 *   !                   a backslash at the chunk's end (an element's "[" may follow: "![")
 *   #                   a backslash after a blank or at the chunk's start (an ATX heading's
 *                       closing sequence "# Title #")
 *   <                   &lt; (an autolink or HTML; Python-Markdown has no "\<")
 *   &                   &amp; before a letter, digit or # and at the chunk's end (a character
 *                       reference; "A & B" stays as it is)
 *   line endings        &#10; / &#13; (the unit is one line of its block)
 *   U+00A0              &nbsp; (as HTML writes it)
 * At the start of a line (at_start: the unit's start or after a hard break) also:
 *   # > - + =           a backslash (a heading, quote, list item, setext underline, break)
 *   1. 1)               a backslash before the . or ) (an ordered list item)
 *   a blank             &#32; / &#9; (indented code, or a list item's content moved)
 *   (                   a backslash; " ' as &quot; / &#39; (after a link reference
 *                       definition a title may begin on the next line, spec 4.7: the
 *                       paragraph would become the title)
 * The backslash is CommonMark's "this character itself"; Python-Markdown shows it before | and
 * ~ (it escapes neither), the one difference. */
#include "doc/doc.h"
#include <string.h>

typedef int (*write_fn)(void *user, const char *s, size_t len);

static int always(unsigned char c)
{
    return c == '\\' || c == '`' || c == '*' || c == '_' || c == '[' || c == ']' || c == '~' ||
           c == '|';
}

static int entity_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '#';
}

int doc_markdown_escape(const char *s, size_t len, int at_start, write_fn write, void *user)
{
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *rep = NULL; /* the character replaced by this */
        int bs = 0;             /* or a backslash before it */
        int start = at_start && i == 0;
        if (always(c))
            bs = 1;
        else if (c == '!')
            bs = i + 1 == len;
        else if (c == '#')
            bs = i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t';
        else if (c == '<')
            rep = "&lt;";
        else if (c == '&')
            rep = i + 1 == len || entity_char((unsigned char)s[i + 1]) ? "&amp;" : NULL;
        else if (c == 0xC2 && i + 1 < len && (unsigned char)s[i + 1] == 0xA0) {
            if ((i > from && write(user, s + from, i - from)) || write(user, "&nbsp;", 6))
                return -1;
            from = i + 2; /* U+00A0 as &nbsp;, as in HTML: visible, and punctuation (not a
                             blank) beside a delimiter run, as the source's &nbsp; was */
            i++;
            continue;
        } else if (c == '\n')
            rep = "&#10;";
        else if (c == '\r')
            rep = "&#13;";
        else if (start && (c == '>' || c == '-' || c == '+' || c == '=' || c == '('))
            bs = 1;
        else if (start && (c == '"' || c == '\''))
            rep = c == '"' ? "&quot;" : "&#39;"; /* Python-Markdown has no \" or \' */
        else if (start && (c == ' ' || c == '\t'))
            rep = c == ' ' ? "&#32;" : "&#9;";
        else if (at_start && (c == '.' || c == ')') && i > 0 && i <= 9) {
            size_t k = 0; /* an ordered list marker: digits from the start, then . or ) */
            while (k < i && s[k] >= '0' && s[k] <= '9')
                k++;
            bs = k == i;
        }
        if (!rep && !bs)
            continue;
        if (i > from && write(user, s + from, i - from))
            return -1;
        if (rep) {
            if (write(user, rep, strlen(rep)))
                return -1;
            from = i + 1;
        } else {
            if (write(user, "\\", 1))
                return -1;
            from = i; /* the character itself follows its backslash */
        }
    }
    return len > from ? write(user, s + from, len - from) : 0;
}
