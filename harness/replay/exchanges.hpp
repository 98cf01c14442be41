#pragma once
// The communication of one bucket in a replayed step, run for real: a dense
// allreduce, an allgather of the sparse rows each rank touched, or a
// parameter-server push and pull of them.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/parameter_server/protocol.hpp"
#include "collectives/schedule/registry.hpp"
#include "collectives/transport/mpi/transport.hpp"
#include "workloads/bucketing.hpp"
#include "workloads/workload.hpp"
#include "workloads/zipf.hpp"

namespace collbench {

class Exchange {
 public:
  virtual ~Exchange() = default;
  // Untimed set-up of `step` (the step's rows, inputs); `check` makes the step checkable.
  virtual void prepare_step(std::int64_t step, bool check) = 0;
  // Runs the step's communication; returns the time it took on this rank, seconds.
  virtual double run(std::int64_t step) = 0;
  // Wrong results of the last step prepared with check (0 where nothing can be wrong).
  virtual std::int64_t wrong() const = 0;
  // Ends the exchange (ps: finishes the worker); returns an error or "".
  virtual std::string finish() { return ""; }
  // Payload bytes per run, in run order: allreduce: the bucket; allgather: the
  // gathered rows of all ranks; ps: what this worker sent and received.
  virtual std::vector<std::size_t> bytes_per_run() const { return bytes_; }
  virtual std::string kind() const = 0;  // "allreduce", "allgather", "ps", "alltoallv"

 protected:
  std::vector<std::size_t> bytes_;
};

// What the exchanges of one configuration share.
struct ExchangeContext {
  Transport* transport = nullptr;  // carries the collectives; its memory holds their buffers
  MPI_Comm comm = MPI_COMM_NULL;   // the same ranks, for the exchanges' own agreement
  Workspace* workspace = nullptr;  // for calls prepared once, before the steps
  AlgorithmParams params;
  std::uint64_t seed = 1;
  // The MPI library's own transport: the `mpi` baselines call the library, whatever
  // carries the reference algorithms (null: `transport` is it).
  Transport* library = nullptr;
};

// A dense bucket allreduced in place with `algorithm`, from `data` (bucket.bytes, in the
// transport's memory).
std::unique_ptr<Exchange> make_allreduce_exchange(const Bucket& bucket, const AlgorithmEntry& algorithm,
                                                  std::byte* data, const ExchangeContext& ctx);
// One of the workload's all-to-alls, an alltoallv of its count matrix with `algorithm`,
// in buffers every all-to-all shares (in the transport's memory, of the sizes below).
struct AllToAllBuffers {
  std::byte *send = nullptr, *recv = nullptr;
};
std::unique_ptr<Exchange> make_all_to_all_exchange(const AllToAllCall& call, const AlgorithmEntry& algorithm,
                                                   const AllToAllBuffers& buffers, const ExchangeContext& ctx);
// The largest send and receive buffers, in bytes, this rank's all-to-alls need.
std::pair<std::size_t, std::size_t> all_to_all_buffer_bytes(const std::vector<AllToAllCall>& calls, int rank,
                                                            int nranks);
// A sparse tensor's touched rows (index and values) allgathered with `algorithm`
// (an allgather), each rank's block padded to the most rows any rank touched.
std::unique_ptr<Exchange> make_allgather_exchange(const Workload& workload, std::size_t tensor,
                                                  const ZipfSampler& sampler, const AlgorithmEntry& algorithm,
                                                  const ExchangeContext& ctx);
// All sparse tensors' touched rows pushed to and pulled from the servers in one
// parameter-server step. `transport` spans workers and servers.
std::unique_ptr<Exchange> make_ps_exchange(const Workload& workload, const std::vector<const ZipfSampler*>& samplers,
                                           const PsConfig& config, PsRoles roles, MpiTransport& transport,
                                           std::uint64_t seed);

// The parameter-server configuration of a workload's sparse tensors.
PsConfig replay_ps_config(const Workload& workload, const ProtocolEntry& mode);

}  // namespace collbench
