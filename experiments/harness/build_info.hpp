// Provenance of the build, generated at every build by cmake/WriteBuildInfo.cmake.
#pragma once

namespace attnlab::build_info {
extern const char* const kGitCommit;  // full SHA, or "unknown" outside a git checkout
extern const bool kGitDirty;          // tracked files differed from the commit at build time
extern const char* const kBuildType;
extern const char* const kCudaFlags;
extern const char* const kCxxFlags;
extern const char* const kCudaArchitectures;
extern const char* const kNvccVersion;
extern const char* const kCxxCompiler;
}  // namespace attnlab::build_info
