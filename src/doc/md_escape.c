/* md_escape.c — translated text written into Markdown inline content (doc_markdown_escape in
 * doc.h). The model writes plain text; where a character of it would start Markdown markup
 * (emphasis, code, a link, an autolink or HTML, a table cell's end, an escape), it gets the
 * backslash CommonMark and Python-Markdown both read as "this character itself". At the start
 * of a unit (the start of a block's line) the block markers too: # > - + and "1.". */
#include "doc/doc.h"
#include <string.h>

static int special(unsigned char c)
{
    return c == '*' || c == '_' || c == '`' || c == '[' || c == ']' || c == '<' || c == '\\' ||
           c == '|';
}

int doc_markdown_escape(const char *s, size_t len, int at_start,
                        int (*write)(void *user, const char *s, size_t len), void *user)
{
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        int esc = special(c);
        if (at_start && i == 0)
            esc |= c == '#' || c == '>' || c == '-' || c == '+' || c == '=';
        if (at_start && c >= '0' && c <= '9' && i + 1 < len && (s[i + 1] == '.' || s[i + 1] == ')')) {
            size_t k = 0; /* an ordered list marker: digits from the start, then . or ) */
            while (k < i && s[k] >= '0' && s[k] <= '9')
                k++;
            if (k == i) {
                if ((i + 1 > from && write(user, s + from, i + 1 - from)) || write(user, "\\", 1))
                    return -1;
                from = i + 1; /* the backslash goes before the dot: "1\." */
                i++;
                continue;
            }
        }
        if (!esc)
            continue;
        if ((i > from && write(user, s + from, i - from)) || write(user, "\\", 1))
            return -1;
        from = i; /* the character itself follows its backslash */
    }
    return len > from ? write(user, s + from, len - from) : 0;
}
