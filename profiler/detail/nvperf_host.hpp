// libnvperf_host, which CUPTI's profiler API dlopens by name, loaded just before the first
// CUPTI profiler call instead of at every experiment binary's start (it is large to load).
#pragma once

namespace attnlab::profiler::detail {

// Opens libnvperf_host.so once, through the binary's RUNPATH (where CUPTI's own dlopen would
// not look), so that CUPTI's later dlopen of the same soname finds it loaded. Where it cannot be
// opened nothing happens here: CUPTI then reports the failure as it did before.
void preload_nvperf_host();

}  // namespace attnlab::profiler::detail
