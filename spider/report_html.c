/* report_html.c — placeholder while issue 12's printer is written. */
#include "spider.h"

void report_print_html(const report *r, const print_options *o, FILE *out)
{
    (void)r;
    (void)o;
    fputs("not written yet\n", out);
}
