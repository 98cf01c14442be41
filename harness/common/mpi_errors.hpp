#pragma once
// An error an MPI call returns (a tuning file sending a call to an algorithm that cannot
// run it, a peer lost) ends the run with one message from each rank that got it, saying
// where it was, the JSON marked stopped, and exit status 3. The libraries' own
// MPI_ERRORS_ARE_FATAL would end it too, but Open MPI 4.1 prints its message through its
// launcher's help aggregation, which loses it when several ranks fail at once ("Data
// unpack would read past end of buffer"), and the job's status is then the SIGTERM some
// rank got while the others aborted.
namespace collbench {

// Sets the handler on MPI_COMM_WORLD: every communicator made from it inherits it.
void end_run_on_mpi_errors();
// Whether this process is ending through that handler (an interrupt then arriving is the
// launcher ending the job it aborted, not a user's).
bool mpi_error_is_ending();

}  // namespace collbench
