#include "lab/python_student.h"

namespace lb::lab {

void precheck_python_file(const LabSpec&, const std::filesystem::path& file) {
  throw StudentCompileError(file.string() + ": Python labs are not supported by this build yet");
}

std::unique_ptr<StudentProgram> load_python_program(const LabSpec&, const std::filesystem::path& file,
                                                    driver::Session&, const StudentBuild&) {
  throw StudentCompileError(file.string() + ": Python labs are not supported by this build yet");
}

}  // namespace lb::lab
