// Child processes of a test: spawned with their output in files, waited for, and their log read.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace eventsvc::testing {

// Starts `binary` with `args` (argv[0] is the binary), stdin from /dev/null, stdout to `out` and
// stderr to `err` (the same file when equal), appended to or truncated. Throws when it cannot.
pid_t spawn_process(const std::string& binary, const std::vector<std::string>& args,
                    const std::filesystem::path& out, const std::filesystem::path& err,
                    bool append);

// Waits for the child; its exit code, or 128 + the signal that ended it.
int wait_for(pid_t pid);

// A loopback port nothing listens on now (the kernel's choice of an ephemeral one).
int free_loopback_port();

// The file's bytes from `offset` on (empty when it does not exist).
std::string read_file(const std::filesystem::path& path, std::size_t offset = 0);

}  // namespace eventsvc::testing
