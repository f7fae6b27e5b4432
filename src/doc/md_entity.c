/* md_entity.c — the HTML named character references the Markdown inline parser decodes
 * (md_inline.c): the Latin-1 set, the five XML ones and the common typographic ones. A name not
 * listed here (HTML5 has 2,231) is kept in the output as written, as a void element, so nothing
 * is lost; only the model does not read it. */
#include <stddef.h>
#include <string.h>

static const char *const md_entities[][2] = {
    {"AElig", "\xC3\x86"}, {"Aacute", "\xC3\x81"}, {"Acirc", "\xC3\x82"},
    {"Agrave", "\xC3\x80"}, {"Aring", "\xC3\x85"}, {"Atilde", "\xC3\x83"},
    {"Auml", "\xC3\x84"}, {"Ccedil", "\xC3\x87"}, {"Dagger", "\xE2\x80\xA1"},
    {"ETH", "\xC3\x90"}, {"Eacute", "\xC3\x89"}, {"Ecirc", "\xC3\x8A"},
    {"Egrave", "\xC3\x88"}, {"Euml", "\xC3\x8B"}, {"Iacute", "\xC3\x8D"},
    {"Icirc", "\xC3\x8E"}, {"Igrave", "\xC3\x8C"}, {"Iuml", "\xC3\x8F"},
    {"Ntilde", "\xC3\x91"}, {"Oacute", "\xC3\x93"}, {"Ocirc", "\xC3\x94"},
    {"Ograve", "\xC3\x92"}, {"Oslash", "\xC3\x98"}, {"Otilde", "\xC3\x95"},
    {"Ouml", "\xC3\x96"}, {"Prime", "\xE2\x80\xB3"}, {"THORN", "\xC3\x9E"},
    {"Uacute", "\xC3\x9A"}, {"Ucirc", "\xC3\x9B"}, {"Ugrave", "\xC3\x99"},
    {"Uuml", "\xC3\x9C"}, {"Yacute", "\xC3\x9D"}, {"aacute", "\xC3\xA1"},
    {"acirc", "\xC3\xA2"}, {"acute", "\xC2\xB4"}, {"aelig", "\xC3\xA6"},
    {"agrave", "\xC3\xA0"}, {"amp", "&"}, {"apos", "'"}, {"aring", "\xC3\xA5"},
    {"atilde", "\xC3\xA3"}, {"auml", "\xC3\xA4"}, {"bdquo", "\xE2\x80\x9E"},
    {"brvbar", "\xC2\xA6"}, {"bull", "\xE2\x80\xA2"}, {"ccedil", "\xC3\xA7"},
    {"cedil", "\xC2\xB8"}, {"cent", "\xC2\xA2"}, {"copy", "\xC2\xA9"},
    {"curren", "\xC2\xA4"}, {"dagger", "\xE2\x80\xA0"}, {"darr", "\xE2\x86\x93"},
    {"deg", "\xC2\xB0"}, {"divide", "\xC3\xB7"}, {"eacute", "\xC3\xA9"},
    {"ecirc", "\xC3\xAA"}, {"egrave", "\xC3\xA8"}, {"eth", "\xC3\xB0"},
    {"euml", "\xC3\xAB"}, {"euro", "\xE2\x82\xAC"}, {"frac12", "\xC2\xBD"},
    {"frac14", "\xC2\xBC"}, {"frac34", "\xC2\xBE"}, {"ge", "\xE2\x89\xA5"},
    {"gt", ">"}, {"harr", "\xE2\x86\x94"}, {"hellip", "\xE2\x80\xA6"},
    {"iacute", "\xC3\xAD"}, {"icirc", "\xC3\xAE"}, {"iexcl", "\xC2\xA1"},
    {"igrave", "\xC3\xAC"}, {"infin", "\xE2\x88\x9E"}, {"iquest", "\xC2\xBF"},
    {"iuml", "\xC3\xAF"}, {"laquo", "\xC2\xAB"}, {"larr", "\xE2\x86\x90"},
    {"ldquo", "\xE2\x80\x9C"}, {"le", "\xE2\x89\xA4"}, {"lsaquo", "\xE2\x80\xB9"},
    {"lsquo", "\xE2\x80\x98"}, {"lt", "<"}, {"macr", "\xC2\xAF"},
    {"mdash", "\xE2\x80\x94"}, {"micro", "\xC2\xB5"}, {"middot", "\xC2\xB7"},
    {"minus", "\xE2\x88\x92"}, {"nbsp", "\xC2\xA0"}, {"ndash", "\xE2\x80\x93"},
    {"ne", "\xE2\x89\xA0"}, {"not", "\xC2\xAC"}, {"ntilde", "\xC3\xB1"},
    {"oacute", "\xC3\xB3"}, {"ocirc", "\xC3\xB4"}, {"ograve", "\xC3\xB2"},
    {"ordf", "\xC2\xAA"}, {"ordm", "\xC2\xBA"}, {"oslash", "\xC3\xB8"},
    {"otilde", "\xC3\xB5"}, {"ouml", "\xC3\xB6"}, {"para", "\xC2\xB6"},
    {"permil", "\xE2\x80\xB0"}, {"plusmn", "\xC2\xB1"}, {"pound", "\xC2\xA3"},
    {"prime", "\xE2\x80\xB2"}, {"quot", "\""}, {"raquo", "\xC2\xBB"},
    {"rarr", "\xE2\x86\x92"}, {"rdquo", "\xE2\x80\x9D"}, {"reg", "\xC2\xAE"},
    {"rsaquo", "\xE2\x80\xBA"}, {"rsquo", "\xE2\x80\x99"}, {"sbquo", "\xE2\x80\x9A"},
    {"sect", "\xC2\xA7"}, {"shy", "\xC2\xAD"}, {"sup1", "\xC2\xB9"},
    {"sup2", "\xC2\xB2"}, {"sup3", "\xC2\xB3"}, {"szlig", "\xC3\x9F"},
    {"thorn", "\xC3\xBE"}, {"times", "\xC3\x97"}, {"trade", "\xE2\x84\xA2"},
    {"uacute", "\xC3\xBA"}, {"uarr", "\xE2\x86\x91"}, {"ucirc", "\xC3\xBB"},
    {"ugrave", "\xC3\xB9"}, {"uml", "\xC2\xA8"}, {"uuml", "\xC3\xBC"},
    {"yacute", "\xC3\xBD"}, {"yen", "\xC2\xA5"}, {"yuml", "\xC3\xBF"},
};

/* The UTF-8 of the entity name[0..len) (without & and ;), NULL when not in the table. */
const char *md_entity(const char *name, size_t len)
{
    size_t lo = 0, hi = sizeof md_entities / sizeof md_entities[0];
    while (lo < hi) { /* the table is sorted by strcmp (uppercase before lowercase) */
        size_t mid = (lo + hi) / 2;
        const char *k = md_entities[mid][0];
        size_t kl = strlen(k);
        int c = memcmp(name, k, len < kl ? len : kl);
        if (c == 0)
            c = len < kl ? -1 : len > kl ? 1 : 0;
        if (c == 0)
            return md_entities[mid][1];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}
