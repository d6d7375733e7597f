# Which tests hold a GPU (and the host) alone, and which make the quick tier: read by ctest after
# the gtest executables' tests are discovered (tests/CMakeLists.txt appends it to TEST_INCLUDE_FILES,
# with LB_GTEST_TARGETS and LB_GPU_SLOTS set), so it names discovered tests by pattern.
#
# Every gtest test takes one slot of a GPU (RESOURCE_GROUPS "gpus:1"; tests/CMakeLists.txt says how
# the slots are made and handed out) and runs side by side with the rest, `ctest -j` by cores, GPU
# tests included: they check answers, not speed, and each process has its own CUDA context. A test
# in the lists below takes all LB_GPU_SLOTS slots of one GPU, so that no other test runs on that
# device while it does (on a host with several, the others go on on the other GPUs), and gets the
# label gpu_exclusive; one in lb_host_exclusive gets RUN_SERIAL as well: nothing else runs at all,
# since it times a host-side clock or needs the host's cores. Without a resource spec file (plain
# `ctest`) RESOURCE_GROUPS is ignored and only RUN_SERIAL holds. docs/hardening.md ("Tests that hold
# the GPU alone") gives the reasons, one per line of these lists.
set(lb_host_exclusive
  # Timing: the context probe compares each layer's figures with the probe's; other work on the
  # device or host moves them.
  "^Isolation\\.NoLayerButTheFlaggedOnesMovesTheContextProbe( |$)"
  # Timing: plausibility on real runs: a kernel that skips work must measure above the DRAM peak
  # (sharing the device would slow it under the limit and let it pass); legitimate cases cold and hot.
  "^PlausibilityRun\\.(LegitimateCasesPassAndTheJsonCarriesThePeaks|AKernelThatSkipsWorkFailsItsCase)( |$)"
  # Timing: a planted submission's performance points must fall within a range; points come from
  # its speed against ours in the same process, and lab 8's from the trip against the link.
  "^EachGradedPlantedFile/PlantedGradeOnTheGpu\\.GetsItsGrade/"
  # Timing: lab 8's solution must earn full marks: its trips are timed by the parent's polling
  # clock against the host link measured in the same run.
  "^TransferCli\\.TheSolutionGradesFullMarksOnTheGpu( |$)"
  # Timing: lab 9's solution must earn full marks against ours (the folder's kernel, driver layer).
  "^FolderLabOnTheGpu\\.TheSolutionGetsFullMarks( |$)"
  # Timing: a run is interrupted 300 ms into a case and must have timed samples of it by then; the
  # cpu layer's OpenMP loops take every core, and beside 16 other tests they had none (seen on the H100).
  "^RunSafety\\.(CtrlCWritesTheFinishedCasesAndTheInterruptedOneThenExits130|SigtermIsHandledLikeCtrlC)( |$)"
)
# The GPU alone, the host shared: tools that take over the device for their own process.
set(lb_gpu_exclusive
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
    set_tests_properties("${name}" PROPERTIES LABELS "${labels}" RUN_SERIAL ${serial} RESOURCE_GROUPS "gpus:${slots}")
    if(name MATCHES "^EachKernelText/MutationKillOnTheGpu\\.")
      # tests/mutations/mutation-kill.py --jobs 4 (kJobs, tests/test_mutation_kill.cpp): four layerbench runs at once.
      set_tests_properties("${name}" PROPERTIES PROCESSORS 4)
    endif()
  endforeach()
endforeach()
