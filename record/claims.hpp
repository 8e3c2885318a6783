// A claim's record form: the "claims" array every run record holds, written from the plain
// Claim of the phase's declaration (common/claim.hpp) and read back by the report tool.
#pragma once

#include <string>
#include <vector>

// The declaration only: the harness's translation units include this header, and the full JSON
// header made each of them several times slower to compile.
#include <nlohmann/json_fwd.hpp>

#include "common/claim.hpp"

namespace attnlab {

// The claim as a record holds it (record/claims.cpp), and back: FieldError naming the field
// where one is missing or mistyped, the operator is unknown, the right side is not exactly one
// of value, other_phase and paired_against, the metric is not a JSON pointer or the shape does
// not parse.
nlohmann::ordered_json to_json(const Claim& c);
Claim read_claim(const nlohmann::ordered_json& root, const std::string& base);
// The array at `base` ("/claims"); none where it is absent or null.
std::vector<Claim> read_claims(const nlohmann::ordered_json& root, const std::string& base);
// The claims as `--list-claims` prints them: the records' JSON array, indented.
std::string claims_listing(const std::vector<Claim>& claims);

}  // namespace attnlab
