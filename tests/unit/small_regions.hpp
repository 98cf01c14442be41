#pragma once
// Hand-built schedules' pieces for the dataflow and receive-fusion tests: 8-byte buffers
// and 4-byte regions of them, so a test's schedule reads like its drawing.
#include "collectives/schedule/schedule.hpp"

namespace collbench::test {

inline const BufferLayout kOutOfPlace{8, 8, 8, false, 0};
inline const BufferLayout kInPlace{8, 8, 8, true, 0};

inline Region scratch(std::size_t at) { return {BufferId::scratch, at, 4}; }
inline Region recv(std::size_t at) { return {BufferId::recv, at, 4}; }
inline Region send(std::size_t at) { return {BufferId::send, at, 4}; }

}  // namespace collbench::test
