/*
 * main.h — the spider command (main.c), for the programs that run it:
 * bin/spider (spider.c) and bin/spider-mpi (spider_mpi.c).
 */
#ifndef SPIDER_MAIN_H
#define SPIDER_MAIN_H

#include "../../util/comm.h"

/* Runs the command line argv and returns the exit status (SPEC §6).
 * world: this process's place in an MPI job, whose ranks all run the
 * same command line (rank 0 prints the report, every rank returns its
 * status); NULL for one process. */
int spider_command(int argc, char **argv, comm *world);

#endif
