#!/usr/bin/env bash
# docker/run.sh [options] TARGET [VAR=value ...]: runs `make TARGET VAR=value ...` in the attnlab
# image (docker/Dockerfile) with every GPU (--gpus all), CAP_SYS_ADMIN (--cap-add SYS_ADMIN:
# CUPTI and Nsight Compute read hardware counters inside the container), the checkout mounted
# at /src and the results directory mounted at /src/results, so records land on the host.
#   docker/run.sh test                      the test command in the image
#   docker/run.sh experiment PHASE=5 SHAPES=throughput
#   docker/run.sh reproduce RUN=reports/h100/records/5/<run>
# Options:
#   --image NAME     the image (default: $ATTNLAB_IMAGE or attnlab)
#   --results DIR    the host directory mounted as results/ (default: <checkout>/results)
#   --build-image    docker build the image first (docker build -f docker/Dockerfile)
#   -h, --help       this text
# The container builds in build-docker/ unless BUILD= is given (the host's build/ holds the
# host's paths in its CMake cache). Exit codes: make's in the container; 2 bad arguments;
# 3 no docker on PATH, the Docker daemon not reachable, or no image (build it with --build-image).
set -uo pipefail
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die() { echo "docker/run.sh: $2" >&2; exit "$1"; }

repo=$(cd "$(dirname "$0")/.." && pwd)
image=${ATTNLAB_IMAGE:-attnlab}
results=$repo/results
build_image=0
target=""
vars=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --image) [ $# -ge 2 ] && [ -n "$2" ] || die 2 "--image needs a name"; image=$2; shift 2 ;;
    --results) [ $# -ge 2 ] && [ -n "$2" ] || die 2 "--results needs a directory"; results=$2; shift 2 ;;
    --build-image) build_image=1; shift ;;
    -*) die 2 "unknown option '$1' (see --help)" ;;
    *=*) [[ "$1" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die 2 "'$1' is not VAR=value"
         [ -n "$target" ] || die 2 "a make target comes before its variables: '$1'"
         vars+=("$1"); shift ;;
    *) [ -z "$target" ] || die 2 "one make target at a time: '$target', then '$1'"
       [[ "$1" =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] || die 2 "'$1' is not a make target"
       target=$1; shift ;;
  esac
done
[ -n "$target" ] || die 2 "no make target given, e.g. docker/run.sh test (see --help)"
command -v docker >/dev/null 2>&1 || die 3 "docker is not on PATH"
printf '%s\n' "${vars[@]}" | grep -q '^BUILD=' || vars+=("BUILD=build-docker")
mkdir -p "$results" || die 3 "cannot create $results"
results=$(cd "$results" && pwd)

# Docker's own failures exit 125 with its message; this says what to do instead.
docker info >/dev/null 2>&1 ||
  die 3 "the Docker daemon is not reachable (docker info failed): start it (sudo systemctl start docker) or give your user access to it (the docker group)"
if [ "$build_image" = 1 ]; then
  docker build -f "$repo/docker/Dockerfile" -t "$image" "$repo" || exit $?
else
  docker image inspect "$image" >/dev/null 2>&1 ||
    die 3 "no Docker image '$image': build it with docker/run.sh --build-image $target (or docker build -f docker/Dockerfile -t $image .)"
fi
tty=()
[ -t 0 ] && [ -t 1 ] && tty=(-t)
# safe.directory: the checkout belongs to the host's user, git runs as root in the container.
exec docker run --rm "${tty[@]}" --gpus all --cap-add SYS_ADMIN \
  -v "$repo:/src" -v "$results:/src/results" -w /src \
  -e GIT_CONFIG_COUNT=1 -e GIT_CONFIG_KEY_0=safe.directory -e GIT_CONFIG_VALUE_0=/src \
  "$image" make "$target" "${vars[@]}"
