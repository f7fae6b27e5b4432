/* subtitle.c — SubRip (.srt) and WebVTT (.vtt) subtitles into a doc (formats.h). (Being
 * written: until then both formats are refused.) */
#include "doc/formats.h"
#include "base/util.h"

int srt_parse(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    (void)d, (void)o;
    return xerr(err, errlen, "SRT subtitles are not read yet");
}

int vtt_parse(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    (void)d, (void)o;
    return xerr(err, errlen, "WebVTT subtitles are not read yet");
}

int subtitle_finish(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    (void)d, (void)o, (void)err, (void)errlen;
    return 0;
}
