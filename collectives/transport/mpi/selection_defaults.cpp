#include "collectives/transport/mpi/selection_defaults.hpp"

#include <link.h>

#include <fstream>
#include <iterator>

namespace collbench {

std::string loaded_library_path(const std::string& name_part) {
  struct Search {
    const std::string* part;
    std::string found;
  } search{&name_part, ""};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        const std::size_t slash = name.rfind('/');
        if (name.find(*s->part, slash == std::string::npos ? 0 : slash) == std::string::npos) return 0;
        s->found = name;
        return 1;
      },
      &search);
  return search.found;
}

std::string find_mpir_selection(const std::string& bytes) {
  // Each tree is a NUL-terminated string opening with a collective; the MPIR-level one
  // names MPIR algorithms (the CH4 and POSIX trees name compositions and MPIDI ones).
  const std::string opening = "{\"collective=";
  for (std::size_t at = bytes.find(opening); at != std::string::npos; at = bytes.find(opening, at + 1)) {
    if (at > 0 && bytes[at - 1] != '\0') continue;  // inside another string
    const std::size_t end = bytes.find('\0', at);
    if (end == std::string::npos) break;
    const std::string text = bytes.substr(at, end - at);
    if (text.find("\"algorithm=MPIR_") != std::string::npos && text.find("composition=") == std::string::npos)
      return text;
  }
  return "";
}

std::string mpich_default_selection_text() {
  // "libmpich.so", not "libmpich": a program linking MPICH's C++ bindings (as sanitizer
  // builds keep them) loads libmpichcxx.so first, which holds no tree.
  const std::string path = loaded_library_path("libmpich.so");
  if (path.empty()) return "";
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return find_mpir_selection(bytes);
}

}  // namespace collbench
