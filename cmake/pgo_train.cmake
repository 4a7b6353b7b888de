# The training runs of the profile-guided build (SSD_PGO, see CMakeLists.txt): the
# instrumented ssdsim runs a small set of jobs that cover what the model's users run,
# and its counters become the profile the optimised build is compiled with. Run as
#   cmake -DSSDSIM=<instrumented ssdsim> -DPROFILE=<profile dir> -DWORK=<scratch dir> -P pgo_train.cmake
# The profile's counters add up over runs, so the old profile is removed first.
foreach(v SSDSIM PROFILE WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "pgo_train.cmake: -D${v}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${PROFILE}" "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(ENV{SYSTEMC_DISABLE_COPYRIGHT_MESSAGE} 1)

function(train name)
  execute_process(COMMAND "${SSDSIM}" ${ARGN} --out "${WORK}/${name}"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_FILE "${WORK}/${name}.log")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pgo_train.cmake: training run '${name}' failed (${rc}); see ${WORK}/${name}.log")
  endif()
endfunction()

# The runs keep the lookahead thread off, so that the counts depend less on the two
# threads' timing (the same lookups run on the simulation's thread instead). They still
# vary a little from one training to the next (preconditioning's threads, the map's
# growth on another thread), so two builds are not identical; their results are.
# The reference job of the speed benchmark, smaller (the same code paths as 1M requests).
train(bench --preset bench --set workload.requests=200000 --set host.lookahead_thread=false)
# The main job: the default device and workload.
train(default --set host.lookahead_thread=false)
# The other scheduler block and host schedulers, reads first, a mixed-size workload.
train(ios --set controller.scheduler=ios --set host.scheduler=piq --set workload.requests=20000)
train(read_first --set controller.read_first=true --set host.scheduler=rws
      --set workload.size_max_bytes=65536 --set workload.requests=20000)
# The NAND driven directly by the bundled command script.
train(nand_ops --set workload.kind=nand_ops)
file(REMOVE_RECURSE "${WORK}")
