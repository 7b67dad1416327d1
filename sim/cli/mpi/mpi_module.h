/* The C interface of ccsim_sweep_mpi.so, the one piece of ccsim that links MPI. The ccsim binary dlopens it
   only when `ccsim sweep` runs under an MPI launcher, so no other run pays for loading Open MPI (~1.4 ms CPU
   and a third of a small run's instructions in the dynamic loader). Plain C types only: the module moves
   bytes and point indices; what they mean (JSON rows, batches) stays in the binary (sweep_mpi.cpp). */
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { CCSIM_MPI_MODULE_ABI = 1 }; /* bumped on any change below; the binary refuses another value */

struct ccsim_mpi_module {
  int abi;
  /* MPI_Init_thread(FUNNELED) and this process's rank and the world's size; non-zero on failure. */
  int (*start)(int* rank, int* size);
  void (*stop)(void);
  /* Rank 0: a waiting request's sender and byte length (1), or none yet (0). */
  int (*probe_request)(int* source, int* bytes);
  void (*recv_request)(int source, char* buf, int bytes);
  void (*send_points)(int dest, const int64_t* points, int n);
  /* Ranks > 0: sends a request (the rows of the points just run), then blocks for the reply's length. */
  void (*send_request)(const char* buf, int bytes);
  int (*probe_points)(void);
  void (*recv_points)(int64_t* points, int n);
};

/* The module's one exported symbol. */
#define CCSIM_MPI_MODULE_ENTRY "ccsim_mpi_module_table"
const struct ccsim_mpi_module* ccsim_mpi_module_table(void);

#ifdef __cplusplus
}
#endif
