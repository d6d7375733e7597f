# Which tests hold a GPU (and the host) alone, and which make the quick tier: read by ctest after
# the gtest executables' tests are discovered (tests/CMakeLists.txt appends it to TEST_INCLUDE_FILES,
# with LB_GTEST_TARGETS and LB_GPU_SLOTS set), so it names discovered tests by pattern.
#
# Every gtest test but those in lb_no_gpu below takes one slot of a GPU (RESOURCE_GROUPS "gpus:1";
# tests/CMakeLists.txt says how the slots are made and handed out) and runs side by side with the
# rest, `ctest -j` by cores, GPU tests included: they check answers, not speed, and each process has
# its own CUDA context. A test in the lists below takes all LB_GPU_SLOTS slots of one GPU, so that
# no other test runs on that device while it does (on a host with several, the others go on on the
# other GPUs), and gets the label gpu_exclusive; one in lb_host_exclusive gets RUN_SERIAL as well:
# nothing else runs at all, since it times a host-side clock or needs the host's cores. Without a
# resource spec file (plain `ctest`) RESOURCE_GROUPS is ignored and only RUN_SERIAL holds.
# docs/hardening.md ("Tests that hold the GPU alone") gives the reasons, one per line of these
# lists.
set(lb_host_exclusive
  # Timing: the context probe compares each layer's figures with the probe's; other work on the
  # device or host moves them.
  "^Isolation\\.NoLayerButTheFlaggedOnesMovesTheContextProbe( |$)"
  # Timing: a planted submission's performance points must fall within a range; points come from
  # its speed against ours in the same process: here the lab whose timed samples the host paces
  # (06: PyCUDA's Python launch per sample, not held behind the stream gate) and lab 8's, whose
  # trip the parent times with a polling clock against the host link (the others below; lab 5's
  # child loads the PTX Numba compiled elsewhere and launches it through the driver, as lab 1's).
  "^EachGradedPlantedFile/PlantedGradeOnTheGpu\\.GetsItsGrade/0[68]_"
  # Timing: lab 8's solution must earn full marks: its trips are timed by the parent's polling
  # clock against the host link measured in the same run.
  "^TransferCli\\.TheSolutionGradesFullMarksOnTheGpu( |$)"
  # Timing: lab 9's solution must earn full marks against ours (the folder's kernel, driver layer).
  "^FolderLabOnTheGpu\\.TheSolutionGetsFullMarks( |$)"
  # Timing: a run is interrupted 300 ms into a case and must have timed samples of it by then; the
  # cpu layer's OpenMP loops take every core, and beside 16 other tests they had none (seen on the H100).
  "^RunSafety\\.(CtrlCWritesTheFinishedCasesAndTheInterruptedOneThenExits130|SigtermIsHandledLikeCtrlC)( |$)"
)
# The GPU alone, the host shared: measurements of device time alone, whose samples are launched
# behind the stream gate (harness/stream_gate.h: a busy host delays the launches, not the timed
# kernels), and tools that take over the device for their own process.
set(lb_gpu_exclusive
  # Timing: plausibility on real runs: a kernel that skips work must measure above the DRAM peak
  # (sharing the device would slow it under the limit and let it pass); legitimate cases cold and hot.
  "^PlausibilityRun\\.(LegitimateCasesPassAndTheJsonCarriesThePeaks|AKernelThatSkipsWorkFailsItsCase)( |$)"
  # Timing: the kernel-text labs' planted submissions' performance points (as above; the lab's
  # child times yours and ours on the device, both behind the gate).
  "^EachGradedPlantedFile/PlantedGradeOnTheGpu\\.GetsItsGrade/"
  # The profiler: ncu replays each kernel and reads the device's counters; its figures are measurements.
  "^LabTools\\.GpuProfileOfTheSolutionShowsThroughputAndOccupancy( |$)"
  # The sanitizer: compute-sanitizer instruments every launch and pads every allocation of its
  # process; it runs alone, one at a time.
  "^LabTools\\.GpuSanitize"
  "^Lab\\.PlantedSubmissionsUnderTheSanitizerOnTheGpu( |$)"
  "^PythonLab\\.KernelTextSolutionsAreCleanUnderTheSanitizerOnTheGpu( |$)"
)
# The lab's GPU tests: each starts lab children (a CUDA context, NVRTC, every check size) under the
# lab's time limit. Sharing the GPU by time slices with twenty other processes, an NVRTC lab's
# check of seven sizes took more than its 10 s (seen on an H200 at -j32); these take a quarter of a
# GPU's slots, so that at most four run on one device at a time, beside the other tests.
set(lb_gpu_quarter
  "^EachLab/LabSolutionOnTheGpu\\."
  "^EachPlantedFile/PlantedOnTheGpu\\."
  "^FolderLabOnTheGpu\\."
  "^LabAutograderCli\\..*OnTheGpu( |$)"
  "^PythonLab\\..*OnTheGpu( |$)"
)

# Tests that never touch a GPU take no slot (as the reports' pytest files, tests/CMakeLists.txt), so
# that they run beside the tests that hold the GPU alone, on the cores those leave idle: NVRTC's
# compiles (no device: the cubin is for sm_90 by name) and the host side of verification. Whole
# executables by their target, single tests by pattern.
set(lb_no_gpu_targets test_verify_power test_measurement)
set(lb_no_gpu
  "^EachKernelText/MutationKillOf\\.EveryMutationAppliesAndCompilesWithNvrtc/"
  "^LadderCompile\\.EveryRungCompilesWithNvrtcAlone( |$)"
)

# The order they start in (ctest's COST: the costliest first; an explicit COST outranks the times of
# earlier runs, which a fresh build folder lacks). Whatever holds the host alone (RUN_SERIAL) goes
# first: then nothing else is running, whereas placed anywhere later it waits until every running
# test has ended, and the cores idle through that drain (on the H100 at -j16 the run's last 160 s were
# these tests one by one, after a 100 s drain). Then those that hold a GPU alone, beside the tests
# that take no GPU slot (the reports' and tools' pytest files, pip's build: tests/CMakeLists.txt).
# Then the long GPU tests below, roughly by their seconds on the H100 (the pytest files have COST 30,
# pip's build 1000; the rest 0): the quarter-GPU lab tests run at most four at a time, so started last
# they were the run's tail, four processes on sixteen cores. Pattern=cost.
set(lb_cost
  "^EachKernelText/MutationKillOf\\.EveryMutationAppliesAndCompilesWithNvrtc/matmul( |$)=100"
  "^EachKernelText/MutationKillOnTheGpu\\.=60"
  "^TransferBuild\\.=45"
  "^LadderCompile\\.=45"
  "^Cli\\.GpuRunRecordsDeviceAndCeiling( |$)=45"
  "^EachLab/LabSolutionOnTheGpu\\.=40"
  "^EachPlantedFile/PlantedOnTheGpu\\.=35"
  "^LabAutograderCli\\..*OnTheGpu( |$)=35"
  "^PythonLab\\..*OnTheGpu( |$)=35"
  "^Rungs/RungTest\\.MatchesReferenceOnEdgeSizes/.*matmul=20"
  "^AllRegistered/LayerTest\\.=10"
)

# The quick tier (`scripts/test.sh --quick`, `ctest -L quick`): what catches most breakage in
# seconds: sizes and parsing, the workloads' inputs, references and verification, the mutation-kill
# suite at the sizes below 2^20 elements, the record, the measurement's stopping rule, the lab's
# child protocol, and one case per layer (each layer's vector_add on the edge sizes; GPU layers skip
# without a device). Whole executables by their target, single tests by pattern (a parameterized
# test's name goes on with "  # GetParam() = ...": hence "( |$)" at the end of a pattern; CMake's
# regular expressions have no {m,n}).
set(lb_quick_targets test_workloads test_measurement test_record test_child_event)
set(lb_quick
  "^AllRegistered/LayerTest\\.MatchesReferenceOnEdgeSizes/.*_vector_add( |$)"
  "^DefaultAndEdgeSizes/MutationKill\\.EveryCorruptionIsRejected/(vector_add|saxpy|reduce)_1x[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]x1( |$)"
  "^DefaultAndEdgeSizes/MutationKill\\.EveryCorruptionIsRejected/transpose_[0-9]?[0-9]?[0-9]x[0-9]?[0-9]?[0-9]x1( |$)"
  "^DefaultAndEdgeSizes/MutationKill\\.EveryCorruptionIsRejected/matmul_[0-9]?[0-9]?[0-9]x[0-9]?[0-9]?[0-9]x[0-9]?[0-9]?[0-9]( |$)"
  "^Lab(Spec|Planted)\\."
)

foreach(target IN LISTS LB_GTEST_TARGETS)
  foreach(name IN LISTS ${target}_TESTS)
    set(labels "")
    set(serial FALSE)
    set(slots 1)
    foreach(pattern IN LISTS lb_host_exclusive lb_gpu_exclusive)
      if(name MATCHES "${pattern}")
        list(APPEND labels gpu_exclusive)
        set(slots ${LB_GPU_SLOTS})
        list(FIND lb_host_exclusive "${pattern}" host)
        if(host GREATER -1)
          set(serial TRUE)
        endif()
        break()
      endif()
    endforeach()
    list(FIND lb_no_gpu_targets "${target}" host_only)
    if(host_only GREATER -1)
      set(slots 0)
    endif()
    foreach(pattern IN LISTS lb_no_gpu)
      if(name MATCHES "${pattern}")
        set(slots 0)
      endif()
    endforeach()
    if(slots EQUAL 1)
      foreach(pattern IN LISTS lb_gpu_quarter)
        if(name MATCHES "${pattern}")
          math(EXPR slots "${LB_GPU_SLOTS} / 4")
          break()
        endif()
      endforeach()
    endif()
    list(FIND lb_quick_targets "${target}" whole)  # (ctest reads this file without policies: no IN_LIST)
    if(whole GREATER -1)
      list(APPEND labels quick)
    else()
      foreach(pattern IN LISTS lb_quick)
        if(name MATCHES "${pattern}")
          list(APPEND labels quick)
          break()
        endif()
      endforeach()
    endif()
    # COST orders the start (ctest starts the costliest first, and an explicit COST outranks earlier
    # runs' times): see lb_cost above.
    if(serial)
      set(cost 100000)
    elseif(slots EQUAL LB_GPU_SLOTS)
      set(cost 50000)
    else()
      set(cost 0)
      foreach(entry IN LISTS lb_cost)
        string(REGEX REPLACE "=[0-9]+$" "" pattern "${entry}")
        if(name MATCHES "${pattern}")
          string(REGEX REPLACE "^.*=" "" cost "${entry}")
          break()
        endif()
      endforeach()
    endif()
    set_tests_properties("${name}" PROPERTIES LABELS "${labels}" RUN_SERIAL ${serial} COST ${cost})
    if(slots GREATER 0)
      set_tests_properties("${name}" PROPERTIES RESOURCE_GROUPS "gpus:${slots}")
    endif()
    if(NOT serial)
      # A few host threads each, side by side (tests/CMakeLists.txt: LB_TEST_HOST_ENV says why).
      set_tests_properties("${name}" PROPERTIES ENVIRONMENT_MODIFICATION "${LB_TEST_HOST_ENV}")
    endif()
    if(serial)
      list(APPEND lb_serial_tests "${name}")
    elseif(slots EQUAL LB_GPU_SLOTS)
      list(APPEND lb_alone_tests "${name}")
    endif()
    if(name MATCHES "^EachKernelText/MutationKillOnTheGpu\\.")
      # tests/mutations/mutation-kill.py --jobs 4 (kJobs, tests/test_mutation_kill.cpp): four layerbench runs at once.
      set_tests_properties("${name}" PROPERTIES PROCESSORS 4)
    endif()
  endforeach()
endforeach()
# COST alone does not put the RUN_SERIAL tests first: ctest starts a test that others depend on (a
# fixture's setup: install.pip_gpu.install) before any that none do, whatever their costs, and once
# it runs a RUN_SERIAL test waits for the drain. So the tests that hold a GPU alone depend on them
# (DEPENDS orders, whether they pass or not): they are then depended on too, and come first by COST.
if(lb_alone_tests AND lb_serial_tests)
  set_tests_properties(${lb_alone_tests} PROPERTIES DEPENDS "${lb_serial_tests}")
endif()
