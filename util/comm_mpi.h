/*
 * comm_mpi.h — the MPI back end of comm.h (comm_mpi.c), built only with
 * make MPI=1.
 *
 * Ownership: comm_mpi_end() frees the comm and ends MPI.
 */
#ifndef SPIDER_COMM_MPI_H
#define SPIDER_COMM_MPI_H

#include "comm.h"

/* This process's place in MPI_COMM_WORLD, MPI started (MPI_Init_thread:
 * only the calling thread makes MPI calls); NULL if MPI cannot start. */
comm *comm_mpi_world(int *argc, char ***argv);
void comm_mpi_end(comm *c);

#endif
