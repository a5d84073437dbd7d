/* SPDX-License-Identifier: MIT */
/*
 * host_mpi — the MPI host backend (hosts.h), built only into iomatrix-mpi.
 */
#ifndef IOM_HOST_MPI_H
#define IOM_HOST_MPI_H

#include "hosts.h"

/* MPI_Init, then h describes this rank (a follower gets its private directory). 0 or -errno. */
int iom_host_mpi_start(int *argc, char ***argv, struct iom_hosts *h);

/* The private directory removed, MPI_Finalize; code: the command's exit code. */
void iom_host_mpi_finish(struct iom_hosts *h, int code);

#endif
