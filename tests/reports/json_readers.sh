#!/bin/sh
# reports/ reads records only through record/'s typed readers: the writer's structs, each with
# its one reader (record/result.hpp and the blocks it holds), so a field is never read twice in
# two ways. Greps reports/ for reads of a record by JSON pointer or key: record/fields.hpp's
# field readers, a literal pointer, json_pointer, .at/.value/.contains of a key and subscripts
# by a string key. Not scanned: reports/published.cpp, which reads the published figures
# (reports/published/*.json), data drawn beside the records that no writer of this project makes.
# A claim's metric stays a pointer into its result entry (record/claims.hpp), resolved with a
# pointer held in a variable, which the literal patterns leave alone.
# Usage: json_readers.sh <source root>. Exit 1, listing each offending line, when one is found.
root=${1:?usage: json_readers.sh <source root>}
cd "$root" || exit 2
reads='json_pointer|\b(number|string|bool|value|value_or_null|optional_number|optional_string)_at\(|find\([^)]*"/|\.(at|value|contains)\("|[A-Za-z0-9_)\]]\["[^"]*"\]'
found=$(grep -rnE "$reads" --include='*.cpp' --include='*.hpp' reports |
        grep -v '^reports/published\.cpp:' | grep -vE '^[^:]*:[0-9]+:[[:space:]]*//')
if [ -n "$found" ]; then
  echo "a record read by pointer or key in reports/ (read it through record/'s typed reader of its block):"
  echo "$found"
  exit 1
fi
echo "reports/ reads records only through record/'s typed readers"
