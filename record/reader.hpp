// Reading run records back: one record file checked for its schema and required keys, and the
// records of a results tree (<root>/<phase>/<run>/run.json). Every reader (the report tool, the
// tests) goes through here, so a malformed record is named the same way everywhere.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <vector>

#include "record/record.hpp"

namespace attnlab {

// A record that cannot be used; the message starts with the file ("<file>: not valid JSON: ...",
// "<file>: missing /provenance/gpu/uuid (and 2 more)").
struct RecordError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The record in `file` (or `file`.gz, record_file): valid JSON, schema attnlab.run/1, every required key present
// (record_problems). Throws RecordError.
ordered_json read_record(const std::filesystem::path& file);

// Every <root>/<phase>/<run>/run.json (or run.json.gz), sorted by path. Throws RecordError when `root` is not a
// directory.
std::vector<std::filesystem::path> find_records(const std::filesystem::path& root);

}  // namespace attnlab
