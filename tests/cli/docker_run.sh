#!/usr/bin/env bash
# docker_run.sh REPO: docker/run.sh's arguments, with a fake `docker` first on PATH that
# records its argv (one argument a line, one file per call; `info` and `image inspect`, the
# daemon and image checks, are answered without a record): the make target and variables,
# --gpus all, --cap-add SYS_ADMIN, the checkout and results/ mounted, the image, bad input, a
# daemon that is down (FAKE_DOCKER_DOWN) and an image that is missing (FAKE_DOCKER_NO_IMAGE).
set -u
repo=$1
run=$repo/docker/run.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
cat >"$tmp/bin/docker" <<'SH'
#!/usr/bin/env bash
case "$1" in
  info) [ -z "${FAKE_DOCKER_DOWN:-}" ] || { echo "Cannot connect to the Docker daemon" >&2; exit 1; }; exit 0 ;;
  image) [ -z "${FAKE_DOCKER_NO_IMAGE:-}" ] || { echo "No such image" >&2; exit 1; }; exit 0 ;;
esac
n=$(ls "$FAKE_DOCKER_LOG" | wc -l)
printf '%s\n' "$@" >"$FAKE_DOCKER_LOG/$n"
exit "${FAKE_DOCKER_RC:-0}"
SH
chmod +x "$tmp/bin/docker"
export FAKE_DOCKER_LOG=$tmp/log
fails=0
check() {
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
call() {  # call ARGS...: runs docker/run.sh with the fake docker; its calls in $tmp/log/0, 1, ...
  rm -rf "$tmp/log"; mkdir -p "$tmp/log"
  PATH="$tmp/bin:$PATH" "$run" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
}
argv_is() {  # argv_is N LINE...: the Nth docker call's argv, exactly
  local n=$1; shift
  diff <(printf '%s\n' "$@") "$tmp/log/$n" >"$tmp/diff" || { cat "$tmp/diff"; return 1; }
}

call test; rc=$?
check "make test: exit 0" test "$rc" -eq 0
check "make test: one docker run with GPUs, SYS_ADMIN, the checkout and results/ mounted" \
  argv_is 0 run --rm --gpus all --cap-add SYS_ADMIN -v "$repo:/src" -v "$repo/results:/src/results" \
  -w /src -e GIT_CONFIG_COUNT=1 -e GIT_CONFIG_KEY_0=safe.directory -e GIT_CONFIG_VALUE_0=/src \
  attnlab make test BUILD=build-docker
check "make test: no image build unasked" test ! -e "$tmp/log/1"

mkdir -p "$tmp/res"
ATTNLAB_IMAGE=other call --results "$tmp/res" experiment PHASE=5 "SHAPES=throughput latency" BUILD=b
rc=$?
check "variables: exit 0" test "$rc" -eq 0
check "variables, --results, \$ATTNLAB_IMAGE, BUILD kept" \
  argv_is 0 run --rm --gpus all --cap-add SYS_ADMIN -v "$repo:/src" -v "$tmp/res:/src/results" \
  -w /src -e GIT_CONFIG_COUNT=1 -e GIT_CONFIG_KEY_0=safe.directory -e GIT_CONFIG_VALUE_0=/src \
  other make experiment PHASE=5 "SHAPES=throughput latency" BUILD=b

call --build-image --image img reproduce RUN=reports/h100/records/5/x
check "--build-image: docker build first" argv_is 0 build -f "$repo/docker/Dockerfile" -t img "$repo"
check "--build-image: then the run" grep -qxF "reproduce" "$tmp/log/1"

FAKE_DOCKER_RC=5 call test; rc=$?
check "make's exit status comes back" test "$rc" -eq 5

expect() {  # expect RC TEXT ARGS...: one line on stderr naming the problem, that exit status
  local want=$1 text=$2; shift 2
  call "$@"; local got=$?
  check "exit $want: $text" test "$got" -eq "$want"
  check "one line: $text" test "$(wc -l <"$tmp/err")" -eq 1
  check "names it: $text" grep -qF -- "$text" "$tmp/err"
  check "no docker call: $text" test ! -e "$tmp/log/0"
}
expect 2 "no make target given" 
expect 2 "unknown option '--frobnicate'" --frobnicate test
expect 2 "one make target at a time: 'test', then 'build'" test build
expect 2 "a make target comes before its variables: 'PHASE=5'" PHASE=5 experiment
expect 2 "'9X=1' is not VAR=value" test 9X=1
expect 2 "'\$(rm)' is not a make target" '$(rm)'
expect 2 "--image needs a name" test --image
FAKE_DOCKER_DOWN=1 expect 3 "the Docker daemon is not reachable" test
FAKE_DOCKER_NO_IMAGE=1 expect 3 "no Docker image 'attnlab': build it with docker/run.sh --build-image test" test
# No docker: a PATH of only the tools run.sh needs besides docker.
mkdir -p "$tmp/nodocker"
for t in awk dirname grep mkdir; do ln -s "$(command -v $t)" "$tmp/nodocker/$t"; done
PATH=$tmp/nodocker "$(command -v bash)" "$run" test >"$tmp/out" 2>"$tmp/err"; rc=$?
check "no docker: exit 3" test "$rc" -eq 3
check "no docker: named" grep -qF "docker is not on PATH" "$tmp/err"
PATH="$tmp/bin:$PATH" "$run" --help >"$tmp/out"; rc=$?
check "--help: exit 0" test "$rc" -eq 0
check "--help: says what it runs" grep -qF -- "--gpus all" "$tmp/out"
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
