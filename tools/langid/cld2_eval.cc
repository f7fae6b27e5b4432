// cld2_eval.cc — the anchor of docs/LANGID.md: Debian's CLD2 (libcld2-dev) run on each text of a
// test.tsv (lang, band, package, text) from stdin; one line out per text: CLD2's first answer,
// its is_reliable flag, and its first answer among tools/langid/build.py's languages (of its
// top three), as codes of build.py's LANGS (iw -> he, no/nn -> nb, zh-Hant -> zt).
//
//   g++ -O2 -o cld2_eval tools/langid/cld2_eval.cc -lcld2 && ./cld2_eval < test.tsv > cld2.out
//
// Only CLD2's public calls (compact_lang_det.h: DetectLanguageSummary, LanguageCode) are used.
#include <cstdio> // before CLD2's header, which uses FILE without including it
#include <cld2/public/compact_lang_det.h>
#include <cstring>
#include <iostream>
#include <set>
#include <string>

static std::string ours(const char *c)
{
    std::string s(c);
    if (s == "iw") return "he";
    if (s == "no" || s == "nn") return "nb";
    if (s == "zh-Hant") return "zt";
    return s;
}

int main()
{
    static const char *known[] = {"ar", "bg", "ca", "cs", "da", "de", "el", "en", "eo", "es",
        "et", "eu", "fi", "fr", "gl", "he", "hr", "hu", "id", "it", "ja", "ko", "lt", "lv", "nb",
        "nl", "pl", "pt", "ro", "ru", "sk", "sl", "sr", "sv", "tr", "uk", "vi", "zh", "zt"};
    std::set<std::string> set(known, known + sizeof known / sizeof *known);
    std::string line;
    while (std::getline(std::cin, line)) {
        size_t t = 0;
        for (int k = 0; k < 3; k++)
            t = line.find('\t', t) + 1;
        std::string text = line.substr(t);
        CLD2::Language l3[3];
        int pc[3], bytes;
        bool reliable;
        CLD2::Language l = CLD2::DetectLanguageSummary(text.data(), (int)text.size(), true, l3,
                                                       pc, &bytes, &reliable);
        std::string first = ours(CLD2::LanguageCode(l)), inset = "un";
        for (int k = 0; k < 3; k++)
            if (set.count(ours(CLD2::LanguageCode(l3[k])))) {
                inset = ours(CLD2::LanguageCode(l3[k]));
                break;
            }
        std::printf("%s\t%d\t%s\n", first.c_str(), reliable ? 1 : 0, inset.c_str());
    }
    return 0;
}
