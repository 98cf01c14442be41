#include "harness/common/mpi_errors.hpp"

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "collectives/process/progress.hpp"
#include "collectives/transport/shm_memory.hpp"
#include "harness/common/exit_status.hpp"
#include "harness/common/interrupt.hpp"
#include "harness/common/result_sink.hpp"

namespace collbench {
namespace {

std::atomic<bool> g_ending{false};

std::string error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error code " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

void on_mpi_error(MPI_Comm*, int* code, ...) {
  // A signal came first (under Hydra: the launcher's proxy ended and took a peer with it):
  // its thread marks the results with that cause and ends the job; this error is its echo.
  if (interrupt_is_ending()) {
    std::this_thread::sleep_for(std::chrono::seconds(kEndingWaitSeconds));
    std::_Exit(kExitInternal);
  }
  if (g_ending.exchange(true)) return;  // an error while ending: the job ends in a moment anyway
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string what = error_text(*code);
  const std::string place = progress::describe(progress::snapshot());
  std::string where;
  if (rank == 0) where = stop_results("rank 0: the MPI library returned an error: " + what + "; it was in: " + place);
  std::fprintf(stderr, "collbench: rank %d: the MPI library returned an error: %s; it was in: %s. Ending the run with exit status %d%s%s%s\n",
               rank, what.c_str(), place.c_str(), kExitInternal, where.empty() ? "" : " (the rows before it are in ",
               where.c_str(), where.empty() ? "" : ", the JSON marked not completed)");
  std::fflush(stderr);
  remove_shm_names();
  // The other ranks usually got the same error: time for them to say so before rank 0
  // ends the job; one abort, as several at once garble Open MPI's launcher's messages.
  // A rank that got it alone ends the job itself, later.
  std::this_thread::sleep_for(std::chrono::seconds(rank == 0 ? 1 : 3));
  end_job(kExitInternal, OtherRanks::must_be_ended);
}

}  // namespace

void end_run_on_mpi_errors() {
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  MPI_Comm_create_errhandler(on_mpi_error, &handler);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
  MPI_Errhandler_free(&handler);  // freed when MPI_COMM_WORLD no longer uses it
}

bool mpi_error_is_ending() { return g_ending; }

}  // namespace collbench
