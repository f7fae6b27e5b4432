/* split_data.c — the sentence splitter's language data: abbreviations and titles, words that
 * start sentences, language codes. xlate's own lists, gathered by hand from the languages'
 * ordinary usage (a word goes in when a full stop after it is seldom the end of a sentence).
 * Everything here is const. */
#include "text/split_data.h"
#include <string.h>

#define T ABBR_TITLE
#define M ABBR_MID
#define N ABBR_NUM

/* In every language's rules, the neutral ones included. */
static const split_abbr common_abbr[] = {
    {"Dr", T}, {"Prof", T}, {"Mr", T}, {"Mrs", T}, {"Ms", T}, {"St", T},
    {"e.g", M}, {"i.e", M}, {"vs", M}, {"cf", M}, {"ca", M}, {"approx", M}, {"z.B", M},
    {"No", N}, {"Nr", N}, {"Vol", N}, {"Fig", N}, {"pp", N}, {"N\xc2\xb0", N} /* N° */,
    {"N\xc2\xba", N} /* Nº */,
    /* company forms, in every language's text: "Pitt, Briggs & Co. at noon", "ABC Ltd. and" */
    {"Inc", ABBR_END}, {"Ltd", ABBR_END}, {"Co", ABBR_END}, {"Corp", ABBR_END},
    {"Bros", ABBR_END}, {"etc", ABBR_END}, {"Dept", ABBR_END},
    {NULL, 0}};

/* Names written with an exclamation mark that is no terminator: "She works at Yahoo! in the
 * accounting department" goes on (before a lowercase word only). Compared exactly. */
static const char *const bang_names[] = {"Yahoo", "Jeopardy", "Yum", "Wham", NULL};

static const split_abbr en_abbr[] = {
    {"Mx", T}, {"Sr", T}, {"Gen", T}, {"Gov", T}, {"Sen", T}, {"Rep", T}, {"Rev", T},
    {"Hon", T}, {"Capt", T}, {"Col", T}, {"Lt", T}, {"Sgt", T}, {"Cpl", T}, {"Maj", T},
    {"Adm", T}, {"Mt", T}, {"Ft", T}, {"Messrs", T}, {"Msgr", T}, {"Pres", T}, {"Supt", T},
    {"Insp", T}, {"Gens", T}, {"Cmdr", T}, {"Brig", T}, {"Det", T}, {"Atty", T}, {"Amb", T},
    {"Mme", T}, {"Mlle", T}, {"Fr", T}, {"Sra", T}, {"Sta", T}, {"Ste", T},
    {"viz", M}, {"incl", M}, {"esp", M}, {"resp", M}, {"cca", M}, {"lit", M}, {"var", M},
    {"nos", N}, {"vols", N}, {"p", N}, {"ch", N}, {"chap", N}, {"figs", N}, {"sec", N},
    {"secs", N}, {"art", N}, {"para", N}, {"eq", N}, {"eqs", N}, {"tel", N}, {"op", N},
    {"P.S", M}, {"P.P.S", M}, {"PS", M}, {"Drs", T}, {"Pvt", M} /* Pvt. Ltd. */, {"v", M} /* Roe v. Wade */, {"pop", N}, {"ext", N}, {"Rs", N},
    {"ed", N}, {"pg", N}, {"ex", N}, {"ref", N}, {"refs", N}, {"tab", N},
    {"Jr", ABBR_END}, {"al", ABBR_END} /* et al. */, {"est", ABBR_END},
    {"govt", ABBR_END}, {"misc", ABBR_END}, {"med", ABBR_END}, {"min", ABBR_END},
    {"max", ABBR_END}, {"hrs", ABBR_END}, {"mins", ABBR_END}, {"yrs", ABBR_END},
    {"lbs", ABBR_END}, {"oz", ABBR_END}, {"ave", ABBR_END}, {"blvd", ABBR_END},
    {"Jan", N}, {"Feb", N}, {"Mar", N}, {"Apr", N}, {"Jun", N}, {"Jul", N}, {"Aug", N},
    {"Sep", N}, {"Sept", N}, {"Oct", N}, {"Nov", N}, {"Dec", N},
    {NULL, 0}};

static const split_abbr de_abbr[] = {
    {"Hr", T}, {"Hrn", T}, {"Fr", T}, {"Frl", T}, {"Dipl", T}, {"Ing", T}, {"Mag", T},
    {"Dres", T}, {"Pfr", T}, {"Hl", T}, {"med", T}, {"phil", T}, {"rer", T}, {"nat", T},
    {"jur", T}, {"dent", T}, {"vet", T}, {"habil", T}, {"kath", M}, {"ev", M}, {"evang", M},
    {"z.Z", M}, {"u.\xc3\x84", M} /* u. Ä. */,
    {"d.h", M}, {"u.a", M}, {"bzw", M}, {"vgl", M}, {"sog", M}, {"ggf", M}, {"evtl", M},
    {"inkl", M}, {"zzgl", M}, {"u.U", M}, {"o.\xc3\xa4", M} /* o.ä */, {"i.d.R", M},
    {"z.T", M}, {"s.o", M}, {"s.u", M}, {"bspw", M}, {"insb", M}, {"allg", M}, {"ehem", M},
    {"gem", M}, {"max", M}, {"mind", M}, {"ugs", M}, {"urspr", M}, {"v.a", M}, {"z.Zt", M},
    {"u.\xc3\xa4", M} /* u.ä */, {"zw", M}, {"dt", M}, {"engl", M}, {"frz", M},
    {"lat", M}, {"griech", M}, {"gegr", M}, {"geb", M}, {"gest", M}, {"verh", M}, {"Abk", M},
    {"einschl", M}, {"jew", M}, {"bes", M}, {"ebd", M}, {"vs", M}, {"z.H", M}, {"a.D", M},
    {"i.A", M}, {"i.V", M}, {"d.J", M}, {"v.Chr", M}, {"n.Chr", M}, {"Mio", M}, {"Mrd", M},
    {"Tsd", M}, {"Std", M}, {"Min", M}, {"Sek", M}, {"Jh", M}, {"Jhd", M}, {"Jhs", M},
    {"Abs", N}, {"Art", N}, {"S", N}, {"Bd", N}, {"Kap", N}, {"Tel", N}, {"Str", N},
    {"Hbf", N}, {"Abb", N}, {"Tab", N}, {"Anm", N}, {"Aufl", N}, {"Hrsg", N}, {"Nrn", N},
    {"Jan", N}, {"Feb", N}, {"M\xc3\xa4rz", N}, {"Apr", N}, {"Aug", N}, {"Sept", N},
    {"Okt", N}, {"Nov", N}, {"Dez", N},
    {"usw", ABBR_END}, {"etc", ABBR_END}, {"ff", ABBR_END}, {"bzgl", M}, {"ca", M},
    {NULL, 0}};

static const split_abbr fr_abbr[] = {
    {"MM", T}, {"Mme", T}, {"Mmes", T}, {"Mlle", T}, {"Mlles", T}, {"Pr", T}, {"Me", T},
    {"Ste", T}, {"Mgr", T}, {"Gal", T},
    {"p.ex", M}, {"c.-\xc3\xa0-d", M} /* c.-à-d */, {"env", M}, {"cf", M},
    {"av", M}, {"apr", M}, {"J.-C", M},
    {"p", N}, {"pp", N}, {"vol", N}, {"chap", N}, {"art", N}, {"fig", N}, {"n", N},
    {"janv", N}, {"f\xc3\xa9vr", N}, {"avr", N}, {"juil", N}, {"sept", N}, {"oct", N},
    {"nov", N}, {"d\xc3\xa9\x63", N},
    {NULL, 0}};

static const split_abbr es_abbr[] = {
    {"Sr", T}, {"Sra", T}, {"Srta", T}, {"Sres", T}, {"Dra", T}, {"Lic", T}, {"Ing", T},
    {"D", T}, {"D\xc3\xb1\x61", T} /* Dña */, {"Sto", T}, {"Sta", T}, {"Arq", T},
    {"p.ej", M}, {"aprox", M}, {"a.C", M}, {"d.C", M}, {"Ud", M}, {"Uds", M}, {"Vd", M},
    {"Vds", M}, {"Avda", N}, {"Av", N}, {"c", N}, {"Cra", N}, {"Ext", N}, {"Mt", T},
    {"EE", M} /* EE. UU. */, {"UU", ABBR_END}, {"EE.UU", ABBR_END}, {"p\xc3\xa1rrf", N} /* párrf */, {"min", M},
    {"ene", N}, {"feb", N}, {"mar", N}, {"abr", N}, {"may", N}, {"jun", N}, {"jul", N},
    {"ago", N}, {"sep", N}, {"sept", N}, {"oct", N}, {"nov", N}, {"dic", N},
    {"lun", N}, {"mi\xc3\xa9", N} /* mié */, {"jue", N}, {"vie", N},
    {"s\xc3\xa1\x62", N} /* sáb */, {"dom", N},
    {"n\xc3\xbam", N} /* núm */, {"p\xc3\xa1g", N} /* pág */, {"art", N}, {"cap", N},
    {"vol", N}, {"n", N}, {"p", N}, {"pp", N}, {"tel", N},
    {"Adm\xc3\xb3n", M} /* Admón */, {"Hs", ABBR_END},
    {NULL, 0}};

static const split_abbr it_abbr[] = {
    {"Sig", T}, {"Sig.ra", T}, {"Sig.na", T}, {"Sigg", T}, {"Dott", T}, {"Dott.ssa", T},
    {"Avv", T}, {"Ing", T}, {"On", T}, {"Geom", T}, {"Rag", T}, {"Arch", T}, {"Egr", T},
    {"Gent", T}, {"Mons", T}, {"S", T},
    {"es", M}, {"cfr", M}, {"a.C", M}, {"d.C", M}, {"c.a", M},
    {"Dir", T}, {"Amm", T}, {"psicol", T}, {"Prof.ssa", T}, {"Spett", T},
    {"gen", N}, {"feb", N}, {"mar", N}, {"apr", N}, {"mag", N}, {"giu", N}, {"lug", N},
    {"ago", N}, {"set", N}, {"ott", N}, {"nov", N}, {"dic", N},
    {"pag", N}, {"pagg", N}, {"n", N}, {"art", N}, {"cap", N}, {"vol", N}, {"tel", N},
    {"V.Cte", T}, {"econ", M}, {"az", M}, {"meteor", M}, {"idraul", M}, {"ecc", ABBR_END},
    {NULL, 0}};

static const split_abbr nl_abbr[] = {
    {"dhr", T}, {"mevr", T}, {"mw", T}, {"ir", T}, {"ing", T}, {"mr", T}, {"drs", T},
    {"dr", T}, {"prof", T}, {"ds", T},
    {"bijv", M}, {"bv", M}, {"d.w.z", M}, {"o.a", M}, {"m.a.w", M}, {"i.p.v", M},
    {"t.o.v", M}, {"vgl", M}, {"resp", M}, {"m.b.t", M}, {"m.i.v", M}, {"n.a.v", M},
    {"o.l.v", M}, {"z.g", M}, {"a.s", M}, {"v.Chr", M}, {"n.Chr", M}, {"ca", M},
    {"nr", N}, {"blz", N}, {"art", N}, {"hfst", N}, {"vol", N}, {"tel", N},
    {"jan", N}, {"feb", N}, {"mrt", N}, {"apr", N}, {"aug", N}, {"sep", N}, {"sept", N},
    {"okt", N}, {"nov", N}, {"dec", N},
    {"aanw", M}, {"vnw", ABBR_END}, {"enz", ABBR_END},
    {NULL, 0}};

static const split_abbr pt_abbr[] = {
    {"Sr", T}, {"Sra", T}, {"Srta", T}, {"Dra", T}, {"Profa", T}, {"Exmo", T}, {"Exma", T},
    {"D", T}, {"Sto", T}, {"Sta", T}, {"Eng", T},
    {"p.ex", M}, {"aprox", M}, {"a.C", M}, {"d.C", M}, {"V.Exa", M},
    {"n", N}, {"p\xc3\xa1g", N} /* pág */, {"art", N}, {"cap", N}, {"vol", N}, {"p", N},
    {"pp", N}, {"tel", N}, {"Av", N},
    {NULL, 0}};

/* Cyrillic in UTF-8 */
static const split_abbr ru_abbr[] = {
    {"\xd0\xb3-\xd0\xbd", T} /* г-н */, {"\xd0\xb3-\xd0\xb6\xd0\xb0", T} /* г-жа */,
    {"\xd0\xbf\xd1\x80\xd0\xbe\xd1\x84", T} /* проф */,
    {"\xd0\xb0\xd0\xba\xd0\xb0\xd0\xb4", T} /* акад */,
    {"\xd1\x82\xd0\xbe\xd0\xb2", T} /* тов */, {"\xd1\x81\xd0\xb2", T} /* св */,
    {"\xd0\xb8\xd0\xbc", T} /* им */,
    {"\xd0\xbf\xd0\xb3\xd1\x82", M} /* пгт */, {"\xd0\xb3", M} /* г (город, год) */,
    {"\xd0\xb3\xd0\xb3", M} /* гг */, {"\xd0\xbf\xd0\xbe\xd1\x81", M} /* пос */,
    {"\xd1\x81\xd0\xb5\xd0\xbb", M} /* сел */, {"\xd0\xbe\xd0\xb1\xd0\xbb", M} /* обл */,
    {"\xd1\x80-\xd0\xbd", M} /* р-н */, {"\xd0\xbf\xd1\x80", M} /* пр */,
    {"\xd1\x82.\xd0\xb5", M} /* т.е */, {"\xd1\x82.\xd0\xba", M} /* т.к */,
    {"\xd0\xbd\xd0\xb0\xd0\xbf\xd1\x80", M} /* напр */, {"\xd1\x81\xd0\xbc", M} /* см */,
    {"\xd1\x81\xd1\x80", M} /* ср */, {"\xd0\xbe\xd0\xba", M} /* ок */,
    {"\xd0\xb1\xd1\x83\xd0\xba\xd0\xb2", M} /* букв */,
    {"\xd0\xb0\xd0\xbd\xd0\xb3\xd0\xbb", M} /* англ */,
    {"\xd0\xbd\xd0\xb5\xd0\xbc", M} /* нем */, {"\xd0\xbb\xd0\xb0\xd1\x82", M} /* лат */,
    {"\xd1\x83\xd0\xbb", M} /* ул */, {"\xd0\xb4", N} /* д */,
    {"\xd0\xba\xd0\xb2", N} /* кв */,
    {"\xd1\x81\xd1\x82\xd1\x80", N} /* стр */, {"\xd1\x81", N} /* с */,
    {"\xd1\x80\xd0\xb8\xd1\x81", N} /* рис */, {"\xd1\x82", N} /* т */,
    {"\xd0\xb3\xd0\xbb", N} /* гл */, {"\xd0\xbc\xd0\xbb\xd0\xbd", M} /* млн */,
    {"\xd0\xbc\xd0\xbb\xd1\x80\xd0\xb4", M} /* млрд */,
    {"\xd1\x82\xd1\x8b\xd1\x81", M} /* тыс */, {"\xd1\x80\xd1\x83\xd0\xb1", M} /* руб */,
    {NULL, 0}};

static const split_abbr el_abbr[] = {
    {"\xce\xba", T} /* κ (κύριος) */, {"\xce\xba\xce\xb1", T} /* κα */,
    {"\xcf\x80.\xcf\x87", M} /* π.χ */, {"\xce\xb4\xce\xb7\xce\xbb", M} /* δηλ */,
    {NULL, 0}};

static const split_abbr no_abbr[] = {{NULL, 0}};

/* German compounds: Bahnhofstr. 5, Marktpl. 3 */
static const split_abbr de_suffix[] = {{"str", ABBR_NUM}, {"pl", ABBR_NUM}, {NULL, 0}};

#undef T
#undef M
#undef N

static const char *const en_starters[] = {
    "The", "A", "An", "I", "It", "He", "She", "We", "They", "You", "This", "That", "These",
    "Those", "There", "Then", "But", "And", "So", "How", "What", "Why", "When", "Where", "Who",
    "In", "On", "At", "My", "His", "Her", "Our", "Their", "Its", "If", "As", "After", "Today",
    "Yesterday", "Tomorrow", "Is", "Are", "Was", "Were", "Do", "Does", "Did", "Can", "Will",
    "However", "Meanwhile", "Now", "Here", "Also", "Some", "Many", "Most", "All", "No", "Yes",
    "For", "One", "Two", "Let", "Please", "Thank", "Thanks", "Let's", "I'm", "It's", "Don't",
    NULL};

static const char *const de_starters[] = {
    "Der", "Die", "Das", "Den", "Dem", "Ein", "Eine", "Ich", "Er", "Sie", "Es", "Wir", "Ihr",
    "Du", "Man", "Dann", "Aber", "Und", "Wie", "Was", "Warum", "Wann", "Wo", "Wer", "Am",
    "Im", "In", "Heute", "Gestern", "Morgen", "Dies", "Diese", "Dieser", "Dieses", "Danach",
    "Doch", "Denn", "Auch", "Nun", "Jetzt", "Hier", "Da", "So", "Mein", "Meine", "Sein",
    "Seine", "Unser", "Unsere", "Ist", "Sind", "War", "Waren", "Hat", "Haben", "Bitte",
    "Danke", "Ja", "Nein", "Als", "Wenn", "Nach", "Zum", "Zur", "Auf", "Mit", "Bei", "Alle",
    "Viele", "Einige", "Deshalb", "Trotzdem", NULL};

static const char *const fr_starters[] = {
    "Le", "La", "Les", "Un", "Une", "Je", "Il", "Elle", "Nous", "Vous", "Ils", "Elles", "On",
    "Ce", "Cette", "Ces", "Mais", "Et", "Puis", "Alors", "Comment", "Pourquoi", "Quand", "Qui",
    "Que", "Quel", "Dans", "En", "Au", "Aux", "Mon", "Ma", "Mes", "Son", "Sa", "Ses", "Si",
    "Aujourd'hui", "Hier", "Demain", "C'est", "Oui", "Non", NULL};

static const char *const es_starters[] = {
    "El", "La", "Los", "Las", "Un", "Una", "Yo", "Él", "Ella", "Nosotros", "Ellos", "Ellas",
    "Este", "Esta", "Esto", "Pero", "Y", "Entonces", "Luego", "Cómo", "Qué", "Por", "Cuando",
    "Quién", "En", "Mi", "Su", "Si", "Hoy", "Ayer", "Mañana", "Es", "Hay", "No", NULL};

static const char *const it_starters[] = {
    "Il", "Lo", "La", "I", "Gli", "Le", "Un", "Una", "Io", "Lui", "Lei", "Noi", "Voi", "Loro",
    "Questo", "Questa", "Ma", "E", "Poi", "Allora", "Come", "Perché", "Quando", "Chi", "In",
    "Mio", "Mia", "Se", "Oggi", "Ieri", "Domani", "È", "C'è", "Non", NULL};

static const char *const nl_starters[] = {
    "De", "Het", "Een", "Ik", "Hij", "Zij", "Ze", "We", "Wij", "Jij", "Je", "U", "Dit", "Dat",
    "Deze", "Die", "Maar", "En", "Dan", "Toen", "Hoe", "Wat", "Waarom", "Wanneer", "Waar",
    "Wie", "In", "Op", "Mijn", "Zijn", "Haar", "Ons", "Onze", "Als", "Vandaag", "Gisteren",
    "Morgen", "Er", "Nee", "Ja", NULL};

static const char *const pt_starters[] = {
    "O", "A", "Os", "As", "Um", "Uma", "Eu", "Ele", "Ela", "Nós", "Eles", "Elas", "Este",
    "Esta", "Isto", "Isso", "Mas", "E", "Então", "Depois", "Como", "Por", "Quando", "Quem",
    "Em", "No", "Na", "Meu", "Minha", "Seu", "Sua", "Se", "Hoje", "Ontem", "Amanhã", "Não",
    NULL};

static const char *const ru_starters[] = {
    "\xd0\x9e\xd0\xbd" /* Он */, "\xd0\x9e\xd0\xbd\xd0\xb0" /* Она */,
    "\xd0\x9e\xd0\xbd\xd0\xb8" /* Они */, "\xd0\xaf" /* Я */, "\xd0\x9c\xd1\x8b" /* Мы */,
    "\xd0\x92\xd1\x8b" /* Вы */, "\xd0\xad\xd1\x82\xd0\xbe" /* Это */,
    "\xd0\x9d\xd0\xbe" /* Но */, "\xd0\x98" /* И */, "\xd0\x92" /* В */,
    "\xd0\x9d\xd0\xb0" /* На */, "\xd0\x9a\xd0\xb0\xd0\xba" /* Как */,
    "\xd0\xa7\xd1\x82\xd0\xbe" /* Что */,
    "\xd0\x9f\xd0\xbe\xd1\x82\xd0\xbe\xd0\xbc" /* Потом */,
    "\xd0\xa2\xd0\xbe\xd0\xb3\xd0\xb4\xd0\xb0" /* Тогда */, NULL};

static const char *const no_starters[] = {NULL};

static const split_rules rules_table[] = {
    {"", no_abbr, no_abbr, no_starters, 0, 0, 0, 0, 0, 0},
    {"en", en_abbr, no_abbr, en_starters, 0, 0, 1, 0, 0, 1},
    {"de", de_abbr, de_suffix, de_starters, 1, 0, 0, 0, 0, 1},
    {"fr", fr_abbr, no_abbr, fr_starters, 0, 0, 0, 0, 0, 1},
    {"es", es_abbr, no_abbr, es_starters, 0, 0, 0, 0, 0, 1},
    {"it", it_abbr, no_abbr, it_starters, 0, 0, 0, 0, 0, 1},
    {"nl", nl_abbr, no_abbr, nl_starters, 0, 0, 0, 0, 0, 1},
    {"pt", pt_abbr, no_abbr, pt_starters, 0, 0, 0, 0, 0, 1},
    {"ru", ru_abbr, no_abbr, ru_starters, 0, 0, 0, 0, 0, 1},
    {"el", el_abbr, no_abbr, no_starters, 0, 1, 0, 0, 0, 1},
    {"hy", no_abbr, no_abbr, no_starters, 0, 0, 0, 1, 1, 1},
};

/* ISO 639-1 code, then its 639-3 / 639-2 B and T forms. */
static const char *const code_aliases[][4] = {
    {"en", "eng", NULL, NULL}, {"de", "deu", "ger", "gsw"}, {"fr", "fra", "fre", NULL},
    {"es", "spa", NULL, NULL}, {"it", "ita", NULL, NULL},    {"nl", "nld", "dut", NULL},
    {"pt", "por", NULL, NULL}, {"ru", "rus", NULL, NULL},   {"el", "ell", "gre", NULL},
    {"hy", "hye", "arm", NULL},
    {"zh", "zho", "chi", "cmn"}, {"ja", "jpn", NULL, NULL},
    /* ISO 639-3's Chinese languages written in Han characters (NLLB's yue_Hant, OPUS-MT's
     * wuu, lzh): Chinese rules, no spaces. Min Nan (nan) is left out: it is also written in
     * Latin letters (Pe̍h-ōe-jī), with spaces. */
    {"zh", "yue", "wuu", "lzh"}, {"zh", "gan", "hak", "hsn"}, {"zh", "cjy", "cdo", "cpx"},
};

/* The primary subtag of lang, lowercased, into out (size 4): "en" from "EN-gb", "eng" from
 * "eng_US". Returns 0, or -1 when it is not 2 or 3 ASCII letters. */
static int primary(const char *lang, char *out)
{
    size_t k = 0;
    if (!lang)
        return -1;
    for (; lang[k] && lang[k] != '_' && lang[k] != '-'; k++) {
        char c = lang[k];
        if (k >= 3)
            return -1;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c < 'a' || c > 'z')
            return -1;
        out[k] = c;
    }
    out[k] = '\0';
    return k >= 2 ? 0 : -1;
}

/* The ISO 639-1 form of a code we know, or NULL. */
static const char *canonical(const char *lang)
{
    char p[4];
    if (primary(lang, p))
        return NULL;
    for (size_t i = 0; i < sizeof code_aliases / sizeof code_aliases[0]; i++)
        for (int j = 0; j < 4 && code_aliases[i][j]; j++)
            if (strcmp(p, code_aliases[i][j]) == 0)
                return code_aliases[i][0];
    return NULL;
}

const split_rules *split_rules_for(const char *lang)
{
    const char *c = canonical(lang);
    for (size_t i = 1; c && i < sizeof rules_table / sizeof rules_table[0]; i++)
        if (strcmp(c, rules_table[i].name) == 0)
            return &rules_table[i];
    return &rules_table[0];
}

const split_abbr *split_common_abbr(void) { return common_abbr; }

int split_bang_name(const char *s, size_t n)
{
    for (const char *const *w = bang_names; *w; w++)
        if (strlen(*w) == n && memcmp(s, *w, n) == 0)
            return 1;
    return 0;
}

int split_code_no_spaces(const char *lang)
{
    const char *c = canonical(lang);
    return c && (strcmp(c, "zh") == 0 || strcmp(c, "ja") == 0);
}
