// ccsim_sweep_mpi.so: the MPI calls of `mpirun -np N ccsim sweep` behind the C table of mpi_module.h. Only
// rank 0's main thread (master) or a worker's main thread calls in (MPI_THREAD_FUNNELED).
#include "sim/cli/mpi/mpi_module.h"

#include <mpi.h>

namespace {

constexpr int kTagRequest = 1, kTagPoint = 2;

int start(int* rank, int* size) {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 0;
}

void stop() { MPI_Finalize(); }

int probe_request(int* source, int* bytes) {
  int flag = 0;
  MPI_Status st;
  MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &flag, &st);
  if (!flag) return 0;
  *source = st.MPI_SOURCE;
  MPI_Get_count(&st, MPI_CHAR, bytes);
  return 1;
}

void recv_request(int source, char* buf, int bytes) {
  MPI_Recv(buf, bytes, MPI_CHAR, source, kTagRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

void send_points(int dest, const int64_t* points, int n) {
  MPI_Send(points, n, MPI_INT64_T, dest, kTagPoint, MPI_COMM_WORLD);
}

void send_request(const char* buf, int bytes) { MPI_Send(buf, bytes, MPI_CHAR, 0, kTagRequest, MPI_COMM_WORLD); }

int probe_points() {
  MPI_Status st;
  MPI_Probe(0, kTagPoint, MPI_COMM_WORLD, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_INT64_T, &n);
  return n;
}

void recv_points(int64_t* points, int n) {
  MPI_Recv(points, n, MPI_INT64_T, 0, kTagPoint, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

constexpr ccsim_mpi_module kTable{CCSIM_MPI_MODULE_ABI, start, stop, probe_request, recv_request, send_points,
                                  send_request, probe_points, recv_points};

} // namespace

extern "C" __attribute__((visibility("default"))) const ccsim_mpi_module* ccsim_mpi_module_table() { return &kTable; }
