/*
 * spider_mpi.c — bin/spider-mpi (make MPI=1): the command on every rank
 * of an MPI job, `mpirun -np N bin/spider-mpi [options] TRACE...`, with
 * the report and exit status of bin/spider (main.h, engine_ranks.h).
 */
#include "main.h"

#include "../../util/comm_mpi.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    comm *world = comm_mpi_world(&argc, &argv);
    if (!world) {
        fputs("spider: MPI could not start (run under mpirun)\n", stderr);
        return 2;
    }
    int status = spider_command(argc, argv, world);
    /* rank 0's status is the job's: mpirun ends with the first status
     * that is not 0, and the others would only repeat it */
    int own = comm_rank(world) == 0 ? status : 0;
    comm_mpi_end(world);
    return own;
}
