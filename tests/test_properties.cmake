# Which tests hold the GPU (and the host) alone, and which make the quick tier: read by ctest after
# the gtest executables' tests are discovered (tests/CMakeLists.txt appends it to TEST_INCLUDE_FILES,
# with LB_GTEST_TARGETS set), so it names discovered tests by pattern, not one by one.
#
# Every other test runs side by side with the rest, `ctest -j` by cores, GPU tests included: they
# check answers, not speed, and each process has its own CUDA context. A test here gets RUN_SERIAL
# (nothing else runs while it does: not another GPU test, and no compile or CPU test taking the host
# cores a host-side clock or launch loop needs) and the label gpu_exclusive. docs/hardening.md
# ("Tests that hold the GPU alone") gives the reasons, one per line of this list.
set(lb_gpu_exclusive
  # Timing: the context probe compares each layer's figures with the probe's; other work on the
  # device or host moves them.
  "^Isolation\\.NoLayerButTheFlaggedOnesMovesTheContextProbe( |$)"
  # Timing: plausibility on real runs: a kernel that skips work must measure above the DRAM peak
  # (sharing the device would slow it under the limit and let it pass); legitimate cases cold and hot.
  "^PlausibilityRun\\.(LegitimateCasesPassAndTheJsonCarriesThePeaks|AKernelThatSkipsWorkFailsItsCase)( |$)"
  # Timing: a planted submission's performance points must fall within a range; points come from
  # its speed against ours in the same process, and lab 8's from the trip against the link.
  "^Lab\\.PlantedSubmissionsGetTheirGradeOnTheGpu( |$)"
  # Timing: lab 8's solution must earn full marks: its trips are timed by the parent's polling
  # clock against the host link measured in the same run.
  "^TransferCli\\.TheSolutionGradesFullMarksOnTheGpu( |$)"
  # Timing: a run is interrupted 300 ms into a case and must have timed samples of it by then; the
  # cpu layer's OpenMP loops take every core, and beside 16 other tests they had none (seen on the H100).
  "^RunSafety\\.(CtrlCWritesTheFinishedCasesAndTheInterruptedOneThenExits130|SigtermIsHandledLikeCtrlC)( |$)"
  # The profiler: ncu replays each kernel and reads the device's counters; its figures are measurements.
  "^LabTools\\.GpuProfileOfTheSolutionShowsThroughputAndOccupancy( |$)"
  # The sanitizer: compute-sanitizer instruments every launch and pads every allocation of its
  # process; it runs alone, one at a time.
  "^LabTools\\.GpuSanitize"
  "^Lab\\.PlantedSubmissionsUnderTheSanitizerOnTheGpu( |$)"
  "^PythonLab\\.KernelTextSolutionsAreCleanUnderTheSanitizerOnTheGpu( |$)"
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
    foreach(pattern IN LISTS lb_gpu_exclusive)
      if(name MATCHES "${pattern}")
        list(APPEND labels gpu_exclusive)
        set(serial TRUE)
        break()
      endif()
    endforeach()
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
    if(labels)
      set_tests_properties("${name}" PROPERTIES LABELS "${labels}" RUN_SERIAL ${serial})
    endif()
  endforeach()
endforeach()
