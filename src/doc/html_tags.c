/* html_tags.c — the table of HTML elements (html_tags.h). */
#include "doc/html_tags.h"
#include <stdlib.h>
#include <string.h>


typedef struct {
    const char *name;
    int flags;
} tag_info;

/* Sorted by name (bsearch); HTML_N_TAGS entries (checked below). */
static const tag_info tags[] = {
    {"a", F_INLINE},
    {"abbr", F_INLINE},
    {"acronym", F_INLINE},
    {"address", F_CLOSEP},
    {"applet", F_BARRIER},
    {"area", F_VOID},
    {"article", F_CLOSEP},
    {"aside", F_CLOSEP},
    {"b", F_INLINE | F_BREAKOUT},
    {"base", F_VOID},
    {"basefont", F_VOID},
    {"bdi", F_INLINE},
    {"bdo", F_INLINE},
    {"bgsound", F_VOID},
    {"big", F_INLINE | F_BREAKOUT},
    {"blockquote", F_CLOSEP | F_BREAKOUT},
    {"body", F_BREAKOUT},
    {"br", F_INLINE | F_VOID | F_BREAKOUT},
    {"button", 0},
    {"caption", F_BARRIER},
    {"center", F_CLOSEP | F_BREAKOUT},
    {"cite", F_INLINE},
    {"code", F_INLINE | F_KEEP | F_BREAKOUT},
    {"col", F_VOID},
    {"data", F_INLINE},
    {"dd", F_CLOSEP | F_BREAKOUT},
    {"del", F_INLINE},
    {"details", F_CLOSEP},
    {"dfn", F_INLINE},
    {"dialog", F_CLOSEP},
    {"dir", F_CLOSEP},
    {"div", F_CLOSEP | F_BREAKOUT},
    {"dl", F_CLOSEP | F_BREAKOUT},
    {"dt", F_CLOSEP | F_BREAKOUT},
    {"em", F_INLINE | F_BREAKOUT},
    {"embed", F_VOID | F_BREAKOUT},
    {"fieldset", F_CLOSEP},
    {"figcaption", F_CLOSEP},
    {"figure", F_CLOSEP},
    {"font", F_INLINE},
    {"footer", F_CLOSEP},
    {"form", F_CLOSEP},
    {"frame", F_VOID},
    {"h1", F_CLOSEP | F_BREAKOUT | F_HEADING},
    {"h2", F_CLOSEP | F_BREAKOUT | F_HEADING},
    {"h3", F_CLOSEP | F_BREAKOUT | F_HEADING},
    {"h4", F_CLOSEP | F_BREAKOUT | F_HEADING},
    {"h5", F_CLOSEP | F_BREAKOUT | F_HEADING},
    {"h6", F_CLOSEP | F_BREAKOUT | F_HEADING},
    {"head", F_BREAKOUT},
    {"header", F_CLOSEP},
    {"hgroup", F_CLOSEP},
    {"hr", F_VOID | F_CLOSEP | F_BREAKOUT},
    {"html", F_BARRIER},
    {"i", F_INLINE | F_BREAKOUT},
    {"iframe", F_RAW | F_KEEP},
    {"img", F_INLINE | F_VOID | F_BREAKOUT},
    {"input", F_INLINE | F_VOID},
    {"ins", F_INLINE},
    {"kbd", F_INLINE | F_KEEP},
    {"keygen", F_VOID},
    {"label", 0},
    {"li", F_CLOSEP | F_BREAKOUT},
    {"link", F_VOID},
    {"listing", F_CLOSEP | F_KEEP | F_BREAKOUT},
    {"main", F_CLOSEP},
    {"mark", F_INLINE},
    {"marquee", F_BARRIER},
    {"math", F_KEEP | F_OPAQUE},
    {"menu", F_CLOSEP | F_BREAKOUT},
    {"meta", F_VOID | F_BREAKOUT},
    {"nav", F_CLOSEP},
    {"noembed", F_RAW | F_KEEP},
    {"noframes", F_RAW | F_KEEP},
    {"noscript", F_RAW | F_KEEP | F_OPAQUE},
    {"object", F_BARRIER},
    {"ol", F_CLOSEP | F_BREAKOUT},
    {"optgroup", 0},
    {"option", 0},
    {"p", F_CLOSEP | F_BREAKOUT},
    {"param", F_VOID},
    {"plaintext", F_CLOSEP | F_KEEP},
    {"pre", F_CLOSEP | F_KEEP | F_BREAKOUT},
    {"q", F_INLINE},
    {"s", F_INLINE | F_BREAKOUT},
    {"samp", F_INLINE | F_KEEP},
    {"script", F_KEEP | F_OPAQUE},
    {"search", F_CLOSEP},
    {"section", F_CLOSEP},
    {"select", 0},
    {"small", F_INLINE | F_BREAKOUT},
    {"source", F_VOID},
    {"span", F_INLINE | F_BREAKOUT},
    {"strike", F_INLINE | F_BREAKOUT},
    {"strong", F_INLINE | F_BREAKOUT},
    {"style", F_RAW | F_KEEP | F_OPAQUE},
    {"sub", F_INLINE | F_BREAKOUT},
    {"summary", F_CLOSEP},
    {"sup", F_INLINE | F_BREAKOUT},
    {"svg", F_KEEP | F_OPAQUE},
    {"table", F_CLOSEP | F_BARRIER | F_BREAKOUT},
    {"tbody", 0},
    {"td", F_BARRIER},
    {"template", F_BARRIER},
    {"textarea", F_RCDATA | F_KEEP | F_OPAQUE},
    {"tfoot", 0},
    {"th", F_BARRIER},
    {"thead", 0},
    {"time", F_INLINE},
    {"title", F_RCDATA},
    {"tr", 0},
    {"track", F_VOID},
    {"tt", F_INLINE | F_BREAKOUT},
    {"u", F_INLINE | F_BREAKOUT},
    {"ul", F_CLOSEP | F_BREAKOUT},
    {"var", F_INLINE | F_KEEP | F_BREAKOUT},
    {"wbr", F_INLINE | F_VOID},
    {"xmp", F_CLOSEP | F_RAW | F_KEEP},
};

static int tag_cmp(const void *key, const void *el)
{
    return strcmp(key, ((const tag_info *)el)->name);
}

/* The id of a lowercased tag name: its index in tags, else HTML_N_TAGS + a hash bucket. */
int html_tag_id(const char *name, int long_name)
{
    const tag_info *t = long_name ? NULL : bsearch(name, tags, HTML_N_TAGS, sizeof *tags, tag_cmp);
    if (t)
        return (int)(t - tags);
    unsigned h = 2166136261u;
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    return HTML_N_TAGS + (int)(h % HTML_N_BUCKETS);
}

int html_tag_flags(int id)
{
    return id < HTML_N_TAGS ? tags[id].flags : 0;
}


_Static_assert(sizeof tags / sizeof tags[0] == HTML_N_TAGS, "HTML_N_TAGS is the table's size");

const char *html_tag_name(int id)
{
    return id >= 0 && id < HTML_N_TAGS ? tags[id].name : "";
}

int html_tag_formatting(int id)
{
    static const char *const f[] = {"a", "b", "big", "code", "em", "font", "i", "nobr", "s",
                                    "small", "strike", "strong", "tt", "u"};
    for (size_t k = 0; id < HTML_N_TAGS && k < sizeof f / sizeof f[0]; k++)
        if (strcmp(tags[id].name, f[k]) == 0)
            return 1;
    return 0;
}

