#!/usr/bin/env bash
# scripts/device-bundle in a scratch repository with a stand-in build (no GPU, no CUDA): a bundle
# packed from a clean tree whose build is of HEAD unpacks into another build directory of the same
# commit; packing refuses a build of another commit, a binary older than the build's stamp, a
# dirty tree and an unknown target; unpacking refuses a tree of another commit and a binary whose
# library is missing there, or whose cuDNN is older than the release it loaded where packed.
#   tests/cli/device_bundle.sh <repository root>
set -u
root=${1:?usage: device_bundle.sh <repository root>}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $1"; exit 1; }
repo=$work/repo
mkdir -p "$repo/scripts" "$repo/build/generated" "$repo/build/bin" "$work/fakebin"
cp "$root/scripts/device-bundle" "$root/scripts/source-commit.sh" "$repo/scripts/"
(cd "$repo" && git init -q && git config user.email t@t && git config user.name t &&
  printf 'build/\n.device-bundle/\n.attnlab-source\n' >.gitignore && git add -A && git commit -qm one) || fail "scratch repository"
head=$(git -C "$repo" rev-parse HEAD)
info() { printf 'const char* const kGitCommit = "%s";\nconst bool kGitDirty = %s;\nconst char* const kNvccVersion = "13.0";\n' "$1" "$2" >"$repo/build/generated/build_info.cpp"; }
info "$head" false
sleep 1  # the binaries newer than the stamp, as a build relinks them after writing it
printf '#!/bin/sh\necho tool-a\n' >"$repo/build/bin/tool-a"
printf '#!/bin/sh\necho tool-b\n' >"$repo/build/bin/tool-b"
chmod +x "$repo/build/bin/tool-a" "$repo/build/bin/tool-b"
bundle=$repo/.device-bundle/bin.tar.xz

out=$("$repo/scripts/device-bundle" pack --build "$repo/build" tool-a tool-b 2>&1) || fail "pack: $out"
echo "$out"
[ -f "$bundle" ] || fail "pack wrote no $bundle"
grep -q "2 binaries of $head" <<<"$out" || fail "pack names the binaries and the commit"

# Unpacked in a copy without .git that carries the stamp (as a device call's copy does).
copy=$work/copy
mkdir -p "$copy/scripts"
cp "$repo/scripts/device-bundle" "$repo/scripts/source-commit.sh" "$copy/scripts/"
cp -r "$repo/.device-bundle" "$copy/"
printf 'commit=%s\ndirty=false\n' "$head" >"$copy/.attnlab-source"
out=$("$copy/scripts/device-bundle" unpack --build "$copy/build" 2>&1) || fail "unpack: $out"
echo "$out"
[ "$("$copy/build/bin/tool-b")" = tool-b ] || fail "the unpacked binary runs"

printf 'commit=%s\ndirty=false\n' 0123456789abcdef >"$copy/.attnlab-source"
expect=$root/tests/cli/expect.sh
"$expect" 1 "the bundle is of $head, this tree of 0123456789abcdef" \
  "$copy/scripts/device-bundle" unpack --build "$copy/build2" || fail "a tree of another commit is refused"
[ ! -e "$copy/build2/bin/tool-a" ] || fail "a refused bundle writes nothing"

printf 'commit=%s\ndirty=false\n' "$head" >"$copy/.attnlab-source"
printf '#!/bin/sh\nprintf "\\tlibgone.so.1 => not found\\n"\n' >"$work/fakebin/ldd"
chmod +x "$work/fakebin/ldd"
PATH="$work/fakebin:$PATH" "$expect" 1 "libraries missing here: tool-a: libgone.so.1" \
  "$copy/scripts/device-bundle" unpack --build "$copy/build3" || fail "a missing library is refused"

# cuDNN: the bundle names the release its binaries load where packed; a machine whose library is
# older refuses them, one with the same or a later release takes them. Stand-in libraries that
# answer cudnnGetVersion (a compiler is needed to make them; CI has one).
if command -v g++ >/dev/null 2>&1; then
  for v in 91400 91900 92000; do
    mkdir -p "$work/cudnn-$v"
    printf 'extern "C" unsigned long cudnnGetVersion() { return %s; }\n' "$v" |
      g++ -shared -fPIC -x c++ - -o "$work/cudnn-$v/libcudnn.so.9" || fail "stand-in cuDNN $v"
  done
  with_cudnn() {  # an ldd that has every binary load the stand-in cuDNN of release $1
    mkdir -p "$work/ldd-$1"
    printf '#!/bin/sh\nprintf "\\tlibcudnn.so.9 => %s (0x0)\\n"\n' "$work/cudnn-$1/libcudnn.so.9" >"$work/ldd-$1/ldd"
    chmod +x "$work/ldd-$1/ldd"
    echo "$work/ldd-$1"
  }
  info "$head" false
  touch "$repo/build/bin/tool-a" "$repo/build/bin/tool-b"
  PATH="$(with_cudnn 91900):$PATH" "$repo/scripts/device-bundle" pack --build "$repo/build" tool-a tool-b >/dev/null ||
    fail "pack with cuDNN"
  grep -q '^cudnn=91900$' < <(xz -dc "$bundle" | tar -xOf - manifest) || fail "the manifest names the packed cuDNN"
  cp "$bundle" "$copy/.device-bundle/bin.tar.xz"
  PATH="$(with_cudnn 91400):$PATH" "$expect" 1 "tool-a loads cuDNN 91400 here, older than the 91900" \
    "$copy/scripts/device-bundle" unpack --build "$copy/build4" || fail "an older cuDNN is refused"
  [ ! -e "$copy/build4/bin/tool-a" ] || fail "a refused bundle writes nothing"
  PATH="$(with_cudnn 92000):$PATH" "$copy/scripts/device-bundle" unpack --build "$copy/build5" >/dev/null ||
    fail "a later cuDNN is taken"
  [ -x "$copy/build5/bin/tool-a" ] || fail "the bundle unpacked where cuDNN is later"
fi

"$expect" 2 "no target 'tool-c'" "$repo/scripts/device-bundle" pack --build "$repo/build" tool-c ||
  fail "an unknown target is refused"

info 0123456789abcdef false
"$expect" 1 "is of 0123456789abcdef (dirty=false), the tree of $head: build again" \
  "$repo/scripts/device-bundle" pack --build "$repo/build" tool-a || fail "a build of another commit is refused"

info "$head" false  # the stamp now newer than the binaries
"$expect" 1 "older than the build's commit stamp" "$repo/scripts/device-bundle" pack --build "$repo/build" tool-a ||
  fail "a binary older than the stamp is refused"

echo change >>"$repo/scripts/device-bundle"
"$expect" 1 "uncommitted changes" "$repo/scripts/device-bundle" pack --build "$repo/build" tool-a ||
  fail "a dirty tree is refused"
echo "ok: device-bundle packs, unpacks and refuses as it says"
