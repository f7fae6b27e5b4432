/* test_transfer.c — doc_transfer (src/doc/transfer.h): markup ranges carried to a translation
 * by the alignment. Every expected range is computed by hand in the comment beside it, from the
 * texts' bytes and the token spans written out here. */
#include "check.h"
#include "doc/transfer.h"
#include <stdlib.h>
#include <string.h>

/* Runs doc_transfer and compares each range with want[2 * i], want[2 * i + 1]. */
static void expect(const char *what, doc_range *r, int n, const doc_alignment *a,
                   const char *src, const char *tgt, const size_t *want)
{
    char err[256] = "";
    int rc = doc_transfer(r, n, a, src, strlen(src), tgt, strlen(tgt), err, sizeof err);
    int same = rc == 0;
    char got[256] = "";
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        same &= r[i].start == want[2 * i] && r[i].end == want[2 * i + 1];
        k += (size_t)snprintf(got + k, sizeof got - k, "[%zu,%zu) ", r[i].start, r[i].end);
    }
    check(same, what, "rc %d %s got %s", rc, err, got);
}

/* The same with kept elements (doc_transfer_kept): kept[i] marks element i. */
static void expect_kept(const char *what, doc_range *r, int n, const unsigned char *kept,
                        const doc_alignment *a, const char *src, const char *tgt,
                        const size_t *want)
{
    char err[256] = "";
    int rc = doc_transfer_kept(r, n, kept, a, src, strlen(src), tgt, strlen(tgt), err,
                               sizeof err);
    int same = rc == 0;
    char got[256] = "";
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        same &= r[i].start == want[2 * i] && r[i].end == want[2 * i + 1];
        k += (size_t)snprintf(got + k, sizeof got - k, "[%zu,%zu) ", r[i].start, r[i].end);
    }
    check(same, what, "rc %d %s got %s", rc, err, got);
}

int main(void)
{
    {
        /* Issue 36: "A man in a `red` shirt" -> "ein roten Hemd": the kept "red" was put on
         * the words aligned to it and replaced them ("roten" lost). Now it stands for itself.
         * source a [0,1) " red" [1,5) " shirt" [5,11); target ein [0,3) " roten" [3,9)
         * " Hemd" [9,14), aligned in order. "red" is not in the target: a point after the
         * words it was aligned to (" roten", core [4,9)): [9,9). */
        const char *src = "a red shirt", *tgt = "ein roten Hemd";
        int ss[] = {0, 1, 1, 5, 5, 11};
        int ts[] = {0, 3, 3, 9, 9, 14};
        int al[] = {0, 1, 2};
        doc_alignment a = {ss, 3, ts, 3, al};
        doc_range r[] = {{2, 5, -1}};
        unsigned char kept[] = {1};
        size_t want[] = {9, 9};
        expect_kept("a kept span the model did not copy: a point after its aligned words, "
                    "covering none", r, 1, kept, &a, src, tgt, want);
    }
    {
        /* "`a` instead of `b`" -> "a statt b", the alignment crossed (target a -> source b,
         * b -> a): by the alignment the two would swap, and the meaning with them. Matched as
         * text: a [0,1), b [8,9). source a [0,1) " instead" [1,9) " of" [9,12) " b" [12,14);
         * target a [0,1) " statt" [1,7) " b" [7,9). */
        const char *src = "a instead of b", *tgt = "a statt b";
        int ss[] = {0, 1, 1, 9, 9, 12, 12, 14};
        int ts[] = {0, 1, 1, 7, 7, 9};
        int al[] = {3, 1, 0};
        doc_alignment a = {ss, 4, ts, 3, al};
        doc_range r[] = {{0, 1, -1}, {13, 14, -1}};
        unsigned char kept[] = {1, 1};
        size_t want[] = {0, 1, 8, 9};
        expect_kept("two kept spans the alignment crossed: each on its own copy, not swapped", r,
                    2, kept, &a, src, tgt, want);
        /* the same without kept: by the alignment, swapped (what issue 36 saw) */
        doc_range r2[] = {{0, 1, -1}, {13, 14, -1}};
        size_t want2[] = {8, 9, 0, 1};
        expect("(the same by the alignment alone: swapped)", r2, 2, &a, src, tgt, want2);
    }
    {
        /* A copy is found as whole words: "a" is not the "a" of "Mann". Source "a man"
         * (a [0,1) " man" [1,5)), target "Mann a" (Mann [0,4) " a" [4,6)), Mann -> man, a -> a;
         * kept "a" [0,1): the first "a" whole is at 5. */
        const char *src = "a man", *tgt = "Mann a";
        int ss[] = {0, 1, 1, 5};
        int ts[] = {0, 4, 4, 6};
        int al[] = {1, 0};
        doc_alignment a = {ss, 2, ts, 2, al};
        doc_range r[] = {{0, 1, -1}};
        unsigned char kept[] = {1};
        size_t want[] = {5, 6};
        expect_kept("a copy found as a whole word, never inside one", r, 1, kept, &a, src, tgt,
                    want);
    }
    {
        /* A link around nothing but a code span, "see [`x`](u) now" -> "siehe x jetzt" with
         * x aligned to " jetzt" (wrongly): the code is its copy [6,7), and the link, which held
         * nothing else, becomes exactly it. source see [0,3) " x" [3,5) " now" [5,9); target
         * siehe [0,5) " x" [5,7) " jetzt" [7,13); siehe -> see, x -> none, jetzt -> x. */
        const char *src = "see x now", *tgt = "siehe x jetzt";
        int ss[] = {0, 3, 3, 5, 5, 9};
        int ts[] = {0, 5, 5, 7, 7, 13};
        int al[] = {0, -1, 1};
        doc_alignment a = {ss, 3, ts, 3, al};
        doc_range r[] = {{4, 5, -1}, {4, 5, 0}};
        unsigned char kept[] = {0, 1};
        size_t want[] = {6, 7, 6, 7};
        expect_kept("a link around only a kept span: both on the span's copy", r, 2, kept, &a,
                    src, tgt, want);
    }
    {
        /* Not copied, aligned to a word and the full stop: the point goes before the stop.
         * source near [0,4) " tree" [4,9) "." [9,10); target nahe [0,4) " Baum." [4,10) (one
         * token), aligned in order; kept "tree" [5,9) -> core [5,10), widened: [5,10); before
         * the stop: [9,9). */
        const char *src = "near tree.", *tgt = "nahe Baum.";
        int ss[] = {0, 4, 4, 9, 9, 10};
        int ts[] = {0, 4, 4, 10};
        int al[] = {0, 1};
        doc_alignment a = {ss, 3, ts, 2, al};
        doc_range r[] = {{5, 9, -1}};
        unsigned char kept[] = {1};
        size_t want[] = {9, 9};
        expect_kept("a kept span not copied, its words ending a sentence: before the full stop",
                    r, 1, kept, &a, src, tgt, want);
    }
    {
        /* "The <b>big</b> dog runs." -> "Der große Hund rennt."
         * source tokens: The [0,3) " big" [3,7) " dog" [7,11) " runs" [11,16) "." [16,17)
         * target tokens: Der [0,3) " große" [3,10) (ß is 2 bytes) " Hund" [10,15)
         *                " rennt" [15,21) "." [21,22); each aligned to the one in its place.
         * b covers "big" [4,7) -> the core of " große": [4,10). */
        const char *src = "The big dog runs.", *tgt = "Der große Hund rennt.";
        int ss[] = {0, 3, 3, 7, 7, 11, 11, 16, 16, 17};
        int ts[] = {0, 3, 3, 10, 10, 15, 15, 21, 21, 22};
        int al[] = {0, 1, 2, 3, 4};
        doc_alignment a = {ss, 5, ts, 5, al};
        doc_range r[] = {{4, 7, -1}};
        size_t want[] = {4, 10};
        expect("one word in bold: on the word it became", r, 1, &a, src, tgt, want);
    }
    {
        /* "<a>The <b>big</b> dog</a> runs." -> "Es rennt der große Hund." (the verb moved)
         * target tokens: Es [0,2) " rennt" [2,8) " der" [8,12) " große" [12,19) " Hund" [19,24)
         *                "." [24,25); aligned: Es -> none, rennt -> runs (3), der -> The (0),
         *                große -> big (1), Hund -> dog (2), "." -> "." (4).
         * a [0,11) covers The, big, dog -> der..Hund: cores [9,12) [13,19) [20,24) -> [9,24);
         * b [4,7) -> große [13,19), inside a. */
        const char *src = "The big dog runs.", *tgt = "Es rennt der große Hund.";
        int ss[] = {0, 3, 3, 7, 7, 11, 11, 16, 16, 17};
        int ts[] = {0, 2, 2, 8, 8, 12, 12, 19, 19, 24, 24, 25};
        int al[] = {-1, 3, 0, 1, 2, 4};
        doc_alignment a = {ss, 5, ts, 6, al};
        doc_range r[] = {{0, 11, -1}, {4, 7, 0}};
        size_t want[] = {9, 24, 13, 19};
        expect("a link around three words moved with them, the bold inside it", r, 2, &a, src,
               tgt, want);
    }
    {
        /* Siblings that would cross: "<b>a</b> <i>b c</i>" -> "x y z" with x -> c, y -> a,
         * z -> b (spans x [0,1) " y" [1,3) " z" [3,5)).
         * b [0,1) -> y: [2,3). i [2,5) covers b, c -> x [0,1) and z [4,5) -> [0,5), which
         * overlaps b and starts before it: cut at b's start -> [0,2) -> trimmed -> [0,1). */
        const char *src = "a b c", *tgt = "x y z";
        int ss[] = {0, 1, 1, 3, 3, 5};
        int ts[] = {0, 1, 1, 3, 3, 5};
        int al[] = {2, 0, 1};
        doc_alignment a = {ss, 3, ts, 3, al};
        doc_range r[] = {{0, 1, -1}, {2, 5, -1}};
        size_t want[] = {2, 3, 0, 1};
        expect("two siblings aligned across each other: cut so that they do not cross", r, 2, &a,
               src, tgt, want);
    }
    {
        /* "A dog<br>runs." (plain "A dog runs.", the br at byte 5, before " runs")
         * -> "Ein Hund rennt." tokens Ein [0,3) " Hund" [3,8) " rennt" [8,14) "." [14,15)
         * source: A [0,1) " dog" [1,5) " runs" [5,10) "." [10,11); aligned in order.
         * The br: the first source token whose text starts at or after 5 is " runs" (core 6),
         * aligned to " rennt" (core 9) -> a point at 9. An <img> at the very end (11): no
         * source token after it -> the end of the text, 15. */
        const char *src = "A dog runs.", *tgt = "Ein Hund rennt.";
        int ss[] = {0, 1, 1, 5, 5, 10, 10, 11};
        int ts[] = {0, 3, 3, 8, 8, 14, 14, 15};
        int al[] = {0, 1, 2, 3};
        doc_alignment a = {ss, 4, ts, 4, al};
        doc_range r[] = {{5, 5, -1}, {11, 11, -1}};
        size_t want[] = {9, 9, 15, 15};
        expect("void elements: before the word that followed them, or at the end", r, 2, &a, src,
               tgt, want);
    }
    {
        /* Half a word in the source stays half: "<b>Haus</b>tür" is not widened, a whole
         * word is. Source "Haustür ist rot" (ü is 2 bytes) tokens Haus [0,4) tür [4,8)
         * " ist" [8,12) " rot" [12,16); target "front door is red" tokens front [0,5)
         * " door" [5,10) " is" [10,13) " red" [13,17); aligned in order (Haus -> front).
         * b [0,4) "Haus" ends inside a word: front [0,5), not widened -> [0,5).
         * i [13,16) "rot", a whole word -> " red" core [14,17). */
        const char *src = "Haustür ist rot", *tgt = "front door is red";
        int ss[] = {0, 4, 4, 8, 8, 12, 12, 16};
        int ts[] = {0, 5, 5, 10, 10, 13, 13, 17};
        int al[] = {0, 1, 2, 3};
        doc_alignment a = {ss, 4, ts, 4, al};
        doc_range r[] = {{0, 4, -1}, {13, 16, -1}};
        size_t want[] = {0, 5, 14, 17};
        expect("part of a word and a whole word", r, 2, &a, src, tgt, want);
    }
    {
        /* A target token that is part of a word: the bold widens to the whole target word when
         * the source range was a whole word. "big dog" tokens big [0,3) " dog" [3,7);
         * target "Riesenhund" tokens Riesen [0,6) hund [6,10); Riesen -> big, hund -> dog.
         * b [0,3) -> [0,6), widened to the word's end -> [0,10). i [4,7) "dog" -> hund [6,10)
         * widened back to the word's start -> [0,10), overlaps b and starts at or after it:
         * moved past b -> [10,10), a point at the end. */
        const char *src = "big dog", *tgt = "Riesenhund";
        int ss[] = {0, 3, 3, 7};
        int ts[] = {0, 6, 6, 10};
        int al[] = {0, 1};
        doc_alignment a = {ss, 2, ts, 2, al};
        doc_range r[] = {{0, 3, -1}, {4, 7, -1}};
        size_t want[] = {0, 10, 10, 10};
        expect("two words that became one: the first keeps it, the second is a point after it", r,
               2, &a, src, tgt, want);
    }
    {
        /* Nothing aligned to a bold word: a point where the next aligned source token went.
         * "a b c" (a [0,1) " b" [1,3) " c" [3,5)) -> "x z" (x [0,1) " z" [1,3)), x -> a,
         * z -> c: b [2,3) has no target; the first source token at or after 2 with an aligned
         * target is c (core 4) -> " z" core 2. */
        const char *src = "a b c", *tgt = "x z";
        int ss[] = {0, 1, 1, 3, 3, 5};
        int ts[] = {0, 1, 1, 3};
        int al[] = {0, 2};
        doc_alignment a = {ss, 3, ts, 2, al};
        doc_range r[] = {{2, 3, -1}};
        size_t want[] = {2, 2};
        expect("an element whose words were dropped: kept, as a point before the next word", r,
               1, &a, src, tgt, want);
    }
    {
        char err[256] = "";
        doc_alignment a = {NULL, 0, NULL, 0, NULL};
        doc_range r[] = {{0, 1, 0}};
        check(doc_transfer(r, 1, &a, "a", 1, "x", 1, err, sizeof err) != 0 &&
              strstr(err, "element 0") != NULL,
              "a parent after its child is refused, naming the element", "%s", err);
        doc_range r2[] = {{0, 9, -1}};
        check(doc_transfer(r2, 1, &a, "a", 1, "x", 1, err, sizeof err) != 0,
              "a range past the text is refused", "%s", err);
    }
    {
        /* "The dog <br>runs." -> "Der Hund rennt.": a void element before "runs" (src 8).
         * source tokens: The [0,3) " dog" [3,7) " runs" [7,12) "." [12,13)
         * target tokens: Der [0,3) " Hund" [3,8) " ren" [8,12) "nt" [12,14) "." [14,15);
         * Der->The, Hund->dog, ren->nothing, nt->runs, .->.
         * The point goes where " runs" went: "nt" at 12, between two pieces of "rennt";
         * the word starts at 9, so the br goes there: [9, 9). A point that split a source word
         * ("The do<br>g", src 6) is not moved: the first source token with a core at or after
         * 6 is " runs" (core 8), which went to 12: [12, 12). */
        const char *src = "The dog runs.", *tgt = "Der Hund rennt.";
        int ss[] = {0, 3, 3, 7, 7, 12, 12, 13};
        int ts[] = {0, 3, 3, 8, 8, 12, 12, 14, 14, 15};
        int al[] = {0, 1, -1, 2, 3};
        doc_alignment a = {ss, 4, ts, 5, al};
        doc_range r[] = {{8, 8, -1}, {6, 6, -1}};
        size_t want[] = {9, 9, 12, 12};
        expect("a void element never splits a target word it did not split in the source", r, 2,
               &a, src, tgt, want);
    }
    {
        /* 50,000 sibling elements, one a word, over a text of 100,000 words translated as
         * itself (each token aligned to its own): every element comes back on its own word.
         * A scan of the tokens for each element would take 5e9 steps here. */
        enum { W = 100000, E = 50000 };
        size_t len = (size_t)W * 4; /* "abc " each */
        char *text = malloc(len + 1);
        int *sp = malloc(sizeof(int) * 2 * W), *al = malloc(sizeof(int) * W);
        doc_range *r = malloc(sizeof *r * E);
        for (int w = 0; w < W; w++) {
            memcpy(text + 4 * (size_t)w, "abc ", 4);
            sp[2 * w] = 4 * w;
            sp[2 * w + 1] = 4 * w + 3;
            al[w] = w;
        }
        text[len - 1] = '\0';
        len--;
        for (int e = 0; e < E; e++) /* every second word */
            r[e] = (doc_range){(size_t)8 * e, (size_t)8 * e + 3, -1};
        doc_alignment a = {sp, W, sp, W, al};
        char err[256] = "";
        int rc = doc_transfer(r, E, &a, text, len, text, len, err, sizeof err), bad = 0;
        for (int e = 0; e < E; e++)
            bad += r[e].start != (size_t)8 * e || r[e].end != (size_t)8 * e + 3;
        check(rc == 0 && bad == 0, "50,000 elements over 100,000 words, each on its own word",
              "rc %d %s, %d misplaced", rc, err, bad);
        free(text);
        free(sp);
        free(al);
        free(r);
    }
    return check_done();
}
