# `cmake --install BUILD --prefix P`: the programs in P/bin (collbench-mpiexec is the
# launcher of the MPI the tree was built with), the tools that run outside the source
# tree in P/share/collbench/scripts, and the documentation in P/share/doc/collbench.
install(TARGETS collbench collbench-kernels collbench-plain-loop collbench-core-handoff RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS ${COLLBENCH_MPIEXEC_SCRIPT} DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME collbench-mpiexec)
install(PROGRAMS
  scripts/emulate_cluster.sh scripts/slurm_cluster.sh scripts/machine_facts.sh
  scripts/plot_sweep.py scripts/merge_results.py scripts/compare_results.py
  DESTINATION ${CMAKE_INSTALL_DATADIR}/collbench/scripts)
# What emulate_cluster.sh builds for MPICH's ranks where the hosts oversubscribe the cores.
install(FILES scripts/ucx_yield_when_idle.c DESTINATION ${CMAKE_INSTALL_DATADIR}/collbench/scripts)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES results/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/results)
install(FILES workloads/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/workloads)
