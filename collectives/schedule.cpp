#include "schedule.hpp"

#include <sstream>

namespace collbench {

LocalOp copy_op(Region dst, Region src) { return {LocalOp::Kind::copy, dst, src, {}}; }
LocalOp reduce_op(Region dst, Region a, Region b) { return {LocalOp::Kind::reduce, dst, a, b}; }

namespace {
const char* buffer_name(BufferId b) {
  switch (b) {
    case BufferId::send: return "send";
    case BufferId::recv: return "recv";
    case BufferId::scratch: return "scratch";
  }
  return "?";
}
std::ostream& operator<<(std::ostream& os, const Region& r) {
  return os << buffer_name(r.buffer) << "[" << r.offset << "+" << r.count << "]";
}
}  // namespace

std::string describe(const Schedule& s) {
  std::ostringstream os;
  os << "scratch " << s.scratch_count << " elements, " << s.steps.size() << " steps\n";
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const Step& st = s.steps[i];
    for (const auto& t : st.sends) os << "step " << i << ": send " << t.region << " -> " << t.peer << "\n";
    for (const auto& t : st.recvs) os << "step " << i << ": recv " << t.region << " <- " << t.peer << "\n";
    for (const auto& op : st.ops) {
      if (op.kind == LocalOp::Kind::copy) os << "step " << i << ": " << op.dst << " = " << op.a << "\n";
      else os << "step " << i << ": " << op.dst << " = " << op.a << " op " << op.b << "\n";
    }
  }
  return os.str();
}

}  // namespace collbench
