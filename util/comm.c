/*
 * comm.c — what comm.h's back ends share.
 */
#include "comm.h"

#include <stdlib.h>
#include <string.h>

void comm_parts_free(comm_parts *p)
{
    for (unsigned r = 0; r < p->n; r++)
        free(p->data[r]);
    free(p->data);
    free(p->len);
    memset(p, 0, sizeof *p);
}
