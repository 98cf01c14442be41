#pragma once
// An MPI communicator this program created (a duplicate or a split), freed when it
// goes out of scope, also when an exception unwinds past it.
#include <mpi.h>

#include <utility>

namespace collbench {

class Communicator {
 public:
  static Communicator duplicate(MPI_Comm parent) {
    Communicator c;
    MPI_Comm_dup(parent, &c.comm_);
    return c;
  }
  // Collective over parent: ranks with the same color share one, ordered by key.
  static Communicator split(MPI_Comm parent, int color, int key) {
    Communicator c;
    MPI_Comm_split(parent, color, key, &c.comm_);
    return c;
  }
  // Collective over parent: the ranks that share memory with this one (one node).
  static Communicator split_shared(MPI_Comm parent, int key) {
    Communicator c;
    MPI_Comm_split_type(parent, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, &c.comm_);
    return c;
  }
  Communicator(Communicator&& o) noexcept : comm_(std::exchange(o.comm_, MPI_COMM_NULL)) {}
  Communicator& operator=(Communicator&& o) noexcept {
    std::swap(comm_, o.comm_);
    return *this;
  }
  ~Communicator() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  MPI_Comm get() const { return comm_; }

 private:
  Communicator() = default;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace collbench
