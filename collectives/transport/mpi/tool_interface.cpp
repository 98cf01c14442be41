#include "collectives/transport/mpi/tool_interface.hpp"

#include <mpi.h>

#include <algorithm>
#include <vector>

namespace collbench {
namespace {

std::map<long long, std::string> enum_choices(MPI_T_enum e) {
  std::map<long long, std::string> out;
  int items = 0, len = 0;
  if (MPI_T_enum_get_info(e, &items, nullptr, &len) != MPI_SUCCESS) return out;
  for (int i = 0; i < items; ++i) {
    char name[256] = {};
    int value = 0, name_len = sizeof name;
    if (MPI_T_enum_get_item(e, i, &value, name, &name_len) == MPI_SUCCESS) out[value] = name;
  }
  return out;
}

std::optional<ControlVariable> read_one(const std::string& name) {
  int index = -1;
  if (MPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS) return std::nullopt;
  int verbosity = 0, bind = 0, scope = 0, name_len = 0, desc_len = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  if (MPI_T_cvar_get_info(index, nullptr, &name_len, &verbosity, &type, &enumtype, nullptr, &desc_len, &bind, &scope) !=
          MPI_SUCCESS ||
      bind != MPI_T_BIND_NO_OBJECT)
    return std::nullopt;
  MPI_T_cvar_handle handle;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return std::nullopt;
  std::vector<char> buf(static_cast<std::size_t>(std::max(count, 1)) * 16 + 1, 0);
  const bool read = MPI_T_cvar_read(handle, buf.data()) == MPI_SUCCESS;
  MPI_T_cvar_handle_free(&handle);
  if (!read || count < 1) return std::nullopt;
  ControlVariable v;
  if (type == MPI_CHAR) {
    v.text = std::string(buf.data());
    return v;
  }
  if (type == MPI_INT)
    v.number = *reinterpret_cast<const int*>(buf.data());
  else if (type == MPI_UNSIGNED)
    v.number = *reinterpret_cast<const unsigned*>(buf.data());
  else if (type == MPI_UNSIGNED_LONG)
    v.number = static_cast<long long>(*reinterpret_cast<const unsigned long*>(buf.data()));
  else if (type == MPI_UNSIGNED_LONG_LONG || type == MPI_COUNT)
    v.number = *reinterpret_cast<const long long*>(buf.data());
  else if (type == MPI_C_BOOL)
    v.number = *reinterpret_cast<const bool*>(buf.data());
  else if (type == MPI_DOUBLE)
    v.number = static_cast<long long>(*reinterpret_cast<const double*>(buf.data()));
  else
    return std::nullopt;
  v.text = std::to_string(v.number);
  if (enumtype != MPI_T_ENUM_NULL) {
    v.is_enum = true;
    v.choices = enum_choices(enumtype);
    if (auto it = v.choices.find(v.number); it != v.choices.end()) v.text = it->second;
  }
  return v;
}

int finalize_tool_interface(MPI_Comm, int, void*, void*) {
  MPI_T_finalize();
  return MPI_SUCCESS;
}

// MPI_T is initialised once per process (Open MPI 4.1 takes a quarter of a second each
// time, opening every component) and finalised at MPI_Finalize, which deletes
// MPI_COMM_SELF's attributes first.
bool tool_interface_ready() {
  static const bool ready = [] {
    int provided = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return false;
    int key = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_tool_interface, &key, nullptr);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
    return true;
  }();
  return ready;
}

}  // namespace

bool mpi_is_running() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

std::map<std::string, ControlVariable> read_control_variables(const std::vector<std::string>& names) {
  std::map<std::string, ControlVariable> out;
  if (!tool_interface_ready()) return out;
  for (const std::string& n : names)
    if (auto v = read_one(n)) out[n] = *v;
  return out;
}

std::optional<std::string> control_variable_description(const std::string& name) {
  int index = -1;
  if (!tool_interface_ready() || MPI_T_cvar_get_index(name.c_str(), &index) != MPI_SUCCESS) return std::nullopt;
  int verbosity = 0, bind = 0, scope = 0, name_len = 0, desc_len = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  if (MPI_T_cvar_get_info(index, nullptr, &name_len, &verbosity, &type, &enumtype, nullptr, &desc_len, &bind, &scope) !=
      MPI_SUCCESS)
    return std::nullopt;
  std::vector<char> desc(static_cast<std::size_t>(desc_len) + 1, 0);
  int len = desc_len + 1;
  if (MPI_T_cvar_get_info(index, nullptr, &name_len, &verbosity, &type, &enumtype, desc.data(), &len, &bind, &scope) !=
      MPI_SUCCESS)
    return std::nullopt;
  return std::string(desc.data());
}

bool write_control_variable(const std::string& name, int value) {
  // Handles are kept: a write is then one call, cheap enough between timed batches.
  static std::map<std::string, std::optional<MPI_T_cvar_handle>> handles;
  auto it = handles.find(name);
  if (it == handles.end()) {
    std::optional<MPI_T_cvar_handle> h;
    int index = -1, count = 0;
    MPI_T_cvar_handle handle;
    if (tool_interface_ready() && MPI_T_cvar_get_index(name.c_str(), &index) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS && count == 1)
      h = handle;
    it = handles.emplace(name, h).first;
  }
  return it->second && MPI_T_cvar_write(*it->second, &value) == MPI_SUCCESS;
}

}  // namespace collbench
