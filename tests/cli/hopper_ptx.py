#!/usr/bin/env python3
"""Hopper's PTX is written once: the inline asm of the sources issues the sm_90 instructions
(wgmma, TMA and bulk copies, async-proxy fences, mbarriers, ldmatrix/stmatrix, setmaxnreg,
st.async, mapa, the cluster barrier, tensor-map prefetch, elect.sync) only in common/hopper.cuh
and its generated common/hopper_wgmma.inc; the kernels and the calibration's microbenchmarks
call those wrappers (or CCCL's cuda::ptx).

    tests/cli/hopper_ptx.py <source root>        (ctest: layers.hopper_ptx)
    tests/cli/hopper_ptx.py --self-test          (ctest: layers.hopper_ptx_catches)

Scans kernels/ profiler/ experiments/ common/ tests/ (C++ and CUDA sources). An asm statement
is `asm` (optionally volatile) and its parenthesised text; its string literals are what PTX it
issues, so descriptions that name an instruction are not flagged. Prints each offending
statement's file and line and exits 1, or prints a summary line and exits 0.
"""
import pathlib
import re
import sys
import tempfile

FOLDERS = ["kernels", "profiler", "experiments", "common", "tests"]
SUFFIXES = {".cu", ".cuh", ".cpp", ".hpp", ".h", ".inc"}
ALLOWED = {"common/hopper.cuh", "common/hopper_wgmma.inc"}
HOPPER = re.compile(r"\b(wgmma\.|cp\.async\.bulk|cp\.reduce\.async\.bulk|fence\.proxy\.async|mbarrier\.|ldmatrix\.|"
                    r"stmatrix\.|setmaxnreg\.|st\.async\.|mapa\.|barrier\.cluster\.|prefetch\.tensormap|elect\.sync)")
ASM = re.compile(r"\basm\s*(volatile\s*)?\(")
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def asm_statements(text):
    """(line, PTX text) of each asm statement: its string literals joined."""
    for m in ASM.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            c = text[i]
            if c == '"':
                j = i + 1
                while j < len(text) and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                i = j
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            i += 1
        body = text[m.end():i]
        yield text.count("\n", 0, m.start()) + 1, " ".join(STRING.findall(body))


def offences(root):
    found, scanned = [], 0
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            rel = path.relative_to(root).as_posix()
            scanned += 1
            if rel in ALLOWED:
                continue
            for line, ptx in asm_statements(path.read_text(errors="replace")):
                hit = HOPPER.search(ptx)
                if hit:
                    found.append(f"{rel}:{line}: inline {hit.group(1).rstrip('.')} (a wrapper of common/hopper.cuh issues it)")
    return found, scanned


def check(root):
    found, scanned = offences(root)
    if found:
        print("Hopper PTX outside common/hopper.cuh:")
        print("\n".join(found))
        return 1
    print(f"hopper_ptx: {scanned} sources; Hopper PTX only in {', '.join(sorted(ALLOWED))}")
    return 0


def self_test():
    """A clean tree passes; each planted statement fails, a description naming an instruction does not."""
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for d in FOLDERS:
            (root / d).mkdir()
        (root / "common/hopper.cuh").write_text('asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");\n')
        (root / "kernels/ok.cuh").write_text('const char* what = "setmaxnreg. and wgmma. named in a description";\n'
                                            'asm volatile("mov.u32 %0, %%smid;" : "=r"(s));\n')
        if offences(root)[0]:
            print("self-test: the clean tree fails")
            failures += 1
        plants = ['asm volatile("fence.proxy.async.shared::cta;" ::: "memory");',
                  'asm volatile(\n  "{\\n"\n  "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0}, [%1];\\n"\n  "}" : "=r"(x) : "r"(a));',
                  'asm("cp.async.bulk.commit_group;");']
        for plant in plants:
            bad = root / "profiler/bad.cu"
            bad.write_text("int f();\n" + plant + "\n")
            if not offences(root)[0]:
                print(f"self-test: not caught: {plant!r}")
                failures += 1
            bad.unlink()
    print("self-test: every planted statement is caught; the clean tree passes" if not failures else "self-test: FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(check(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")))
