#include "harness/command_line.hpp"

#include <CLI/CLI.hpp>
#include <stdexcept>

#include "generated/build_info.hpp"
#include "harness/common/exit_status.hpp"

namespace collbench {

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

  ListOptions list_options;
  CLI::App* list = add_list_command(app, list_options);
  CLI::App* run = app.add_subcommand("run", "Run a validated size sweep of one collective");
  RunFlags run_flags;
  add_run_flags(*run, run_flags);
  run->footer(exit_status_text());
  PsFlags ps_flags;
  add_ps_flags(*run, ps_flags);
  CLI::App* replay = app.add_subcommand("replay", "Replay a model's gradient exchange per training step: "
                                                  "bucketing, overlap with backward, exposed communication");
  ReplayFlags replay_flags;
  add_replay_flags(*replay, replay_flags);
  replay->footer(exit_status_text());
  WorkloadsFlags workloads_flags;
  CLI::App* workloads = add_workloads_command(app, workloads_flags);
  ScheduleFlags schedule_flags;
  CLI::App* schedule = add_schedule_command(app, schedule_flags);
  P2pFlags p2p_flags;
  CLI::App* p2p = add_p2p_command(app, p2p_flags);
  p2p->footer(exit_status_text());
  CostModelFlags model_flags;
  CLI::App* model = add_model_command(app, model_flags);

  try {
    app.parse(argc, argv);
    if (list->parsed()) return list_options;
    if (workloads->parsed()) return resolve_workloads(workloads_flags);
    if (replay->parsed()) return resolve_replay(replay_flags, registry, nranks, machine);
    if (schedule->parsed()) return resolve_schedule(schedule_flags, registry);
    if (p2p->parsed()) return resolve_p2p(p2p_flags, nranks, machine);
    if (model_flags.fit_app->parsed()) return model_flags.fit;
    if (model->parsed()) return resolve_model(model_flags, registry);
    RunOptions o = resolve_run(run_flags, registry, nranks, machine);
    if (is_parameter_server(run_flags)) return resolve_ps(o, ps_flags, registry, nranks, machine);
    return o;
  } catch (const CLI::CallForHelp&) {
    std::string text = app.help();
    for (CLI::App* sub : {run, replay, workloads, workloads_flags.show, schedule, p2p, model, model_flags.predict, model_flags.best, model_flags.fit_app})
      if (sub->parsed()) text = sub->help();
    return HelpText{text};
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
