#include "harness/command_line.hpp"

#include <CLI/CLI.hpp>
#include <array>
#include <stdexcept>
#include <tuple>

#include "generated/build_info.hpp"
#include "harness/common/exit_status.hpp"

namespace collbench {
namespace {

// The commands, one row each in the order `collbench --help` lists them: a flags type
// whose folder (harness/<command>/) declares add_command, resolve_command and
// run_command for it. Adding a command is a row here and an entry in Command.
using CommandRows = std::tuple<ListOptions, RunFlags, PsCommandFlags, ReplayFlags, WorkloadsFlags, ScheduleFlags,
                               P2pFlags, CostModelFlags, TuneFlags>;

// One resolved command, or a variant of them (`model fit` beside predict and best).
template <class T>
Command as_command(T&& options) {
  if constexpr (requires { std::visit([](auto&&) {}, options); })
    return std::visit([](auto&& o) { return Command{std::move(o)}; }, std::move(options));
  else
    return Command{std::move(options)};
}

// `run -c ps` (and -cps, --collective ps, --collective=ps) as `ps`, for one release.
bool rewrite_ps_alias(std::vector<std::string>& args) {
  if (args.size() < 2 || args[1] != "run") return false;
  for (std::size_t i = 2; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool split = (a == "-c" || a == "--collective") && i + 1 < args.size() && args[i + 1] == "ps";
    if (!split && a != "-cps" && a != "--collective=ps") continue;
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
               args.begin() + static_cast<std::ptrdiff_t>(i + (split ? 2 : 1)));
    args[1] = "ps";
    return true;
  }
  return false;
}

CLI::App& deepest_parsed(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands())
    if (sub->parsed()) return deepest_parsed(*sub);
  return app;
}

}  // namespace

std::string version_text() {
  return std::string("collbench ") + build_info::version + " (git " + build_info::git_revision + ", " +
         build_info::build_type + ", " + build_info::mpi_build + ", CUDA " + (build_info::have_cuda ? "on" : "off") +
         ", NCCL " + (build_info::have_nccl ? "on" : "off") + ")";
}

Command parse_command_line(int argc, const char* const* argv, const Registry& registry, int nranks,
                           const Machine& machine) {
  CLI::App app{"collbench: collective communication benchmarks for distributed training", "collbench"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every subcommand");
  app.footer(exit_status_text());
  app.set_version_flag("--version", version_text());

  CommandRows rows;
  std::array<CLI::App*, std::tuple_size_v<CommandRows>> apps{};
  std::apply(
      [&](auto&... flags) {
        std::size_t i = 0;
        ((apps[i++] = add_command(app, flags)), ...);
      },
      rows);
  for (CLI::App* a : apps) a->footer(exit_status_text());

  std::vector<std::string> args(argv, argv + argc);
  const bool ps_alias = rewrite_ps_alias(args);
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend() - 1);  // CLI11 parses a vector back to front
    app.parse(reversed);
    const CommandContext context{registry, nranks, machine};
    Command cmd = CommandError{"no command"};
    std::apply(
        [&](auto&... flags) {
          std::size_t i = 0;
          ((apps[i++]->parsed() ? void(cmd = as_command(resolve_command(flags, context))) : void()), ...);
        },
        rows);
    if (auto* ps = std::get_if<PsOptions>(&cmd); ps && ps_alias)
      ps->note = "`collbench run -c ps` is `collbench ps` now; the old spelling goes in the next release";
    return cmd;
  } catch (const CLI::CallForHelp&) {
    return HelpText{deepest_parsed(app).help()};
  } catch (const CLI::CallForVersion& v) {
    return HelpText{v.what() + std::string("\n")};
  } catch (const CLI::CallForAllHelp&) {
    return HelpText{app.help("", CLI::AppFormatMode::All)};
  } catch (const CLI::ParseError& e) {
    std::string text = e.what();
    if (text.empty()) text = "invalid command line";
    return CommandError{text + " (run 'collbench --help' for usage)"};
  } catch (const std::invalid_argument& e) {
    return CommandError{e.what()};
  }
}

}  // namespace collbench
