"""
The local model's runtime runs on any x86-64 CPU of our machine kind.

llama-cpp-python is compiled from source at install time. A build tuned for the
build machine's CPU dies with SIGILL ("Illegal instruction") on a CPU without
the AVX-512 or AMX instructions it was compiled for, and the virtual machines
that run development and CI can land on either. scripts/setup.sh compiles for
the AVX2 baseline instead. These tests prove both halves: the compiled code
holds no instruction beyond AVX2, and the model really generates text. They
fail, never skip, when the runtime is missing or broken: a skipped runtime test
is how a crashing demo went unnoticed.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

SETUP_HINT = "run scripts/setup.sh, which builds llama-cpp-python for the AVX2 baseline"

# An operand or mnemonic that only AVX-512, AVX-VNNI or AMX can encode, as
# objdump prints it (AT&T syntax): 512-bit registers, the upper 16 vector
# registers, opmask registers, opmask instructions, and instruction families
# that Haswell-class CPUs lack.
BEYOND_AVX2 = re.compile(
    r"%zmm\d"
    r"|%[xy]mm(?:1[6-9]|2\d|3[01])\b"
    r"|\{%k[1-7]\}"
    r"|\sk(?:mov|and|andn|or|xor|xnor|not|shiftl|shiftr|test|ortest|add|unpck)[bwdq]\s"
    r"|\svpternlog[dq]\s"
    r"|\svpdp(?:bu|ws)sds?\s"
    r"|\s(?:tileloadd|tileloaddt1|tilestored|tilezero|tilerelease|ldtilecfg|tdpb[su][su]d|tdpbf16ps)\s"
)


def llama_cpp_libraries() -> list[Path]:
    """The shared libraries llama-cpp-python installed, found without importing it."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail(f"llama_cpp is not installed; {SETUP_HINT}")
    package = Path(next(iter(spec.submodule_search_locations)))
    libraries = sorted(package.rglob("*.so*"))
    if not libraries:
        pytest.fail(f"llama_cpp at {package} holds no shared library; {SETUP_HINT}")
    return libraries


class TestInstructionSet:
    @pytest.mark.parametrize(
        "line",
        [
            "  4011a2:\tvaddps %zmm1,%zmm0,%zmm0",
            "  4011a2:\tvmovups %ymm17,(%rax)",
            "  4011a2:\tvmovaps %xmm2,%xmm3{%k1}{z}",
            "  4011a2:\tkmovw %eax,%k1 ",
            "  4011a2:\tvpternlogd $0xff,%ymm0,%ymm0,%ymm0 ",
            "  4011a2:\tvpdpbusd %ymm2,%ymm1,%ymm0 ",
            "  4011a2:\ttdpbssd %tmm2,%tmm1,%tmm0 ",
        ],
    )
    def test_pattern_flags_instructions_beyond_avx2(self, line: str) -> None:
        """Lines in objdump's AT&T syntax that a Haswell-class CPU cannot run."""
        assert BEYOND_AVX2.search(line)

    @pytest.mark.parametrize(
        "line",
        [
            "  4011a2:\tvfmadd231ps %ymm2,%ymm1,%ymm0",
            "  4011a2:\tvmovups %ymm15,(%rax)",
            "  4011a2:\tvcvtph2ps %xmm1,%ymm0",
            "  4011a2:\tvpmaddubsw %ymm2,%ymm1,%ymm0",
            "  4011a2:\tmov    %rsi,%rdi",
            "  4011a2:\tcall   4010a0 <kmovw_helper@plt>",
        ],
    )
    def test_pattern_passes_avx2_and_scalar_code(self, line: str) -> None:
        """AVX2, FMA and F16C instructions, and a symbol merely named like one."""
        assert not BEYOND_AVX2.search(line)

    # Slow, not skipped: it reads the real runtime, which a venv without the
    # local extra (`scripts/test.sh --fast`) lacks, and must fail where it is missing.
    @pytest.mark.slow
    def test_compiled_code_needs_nothing_beyond_avx2(self) -> None:
        """No shared library of llama-cpp-python holds an AVX-512, AVX-VNNI or AMX instruction."""
        objdump = shutil.which("objdump")
        assert objdump, "objdump (binutils) is needed to read the compiled code"
        offending: list[str] = []
        for library in llama_cpp_libraries():
            if library.is_symlink():
                continue
            listing = subprocess.run(
                [objdump, "-d", "--no-show-raw-insn", str(library)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            hits = [line.strip() for line in listing.splitlines() if BEYOND_AVX2.search(line)]
            offending += [f"{library.name}: {hit}" for hit in hits[:3]]
        assert not offending, (
            "llama-cpp-python was compiled for a CPU newer than the AVX2 baseline, so it can die"
            f" with 'Illegal instruction' on other machines ({SETUP_HINT}):\n"
            + "\n".join(offending)
        )


GENERATE = """
from relapse.llms import LocalModel
model = LocalModel(max_tokens=16)
prompt = model.build_prompt(
    "how tall is the radio mast",
    ["The radio mast at Belmont is 385 metres tall and was built in 1965."],
)
print(model(prompt))
"""


@pytest.mark.slow
def test_local_model_generates_text_in_a_fresh_process() -> None:
    """The bundled model loads and answers; a crash of the runtime fails with its signal."""
    llama_cpp_libraries()
    completed = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", GENERATE],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if completed.returncode < 0:
        name = signal.Signals(-completed.returncode).name
        pytest.fail(
            f"the local model's process died with {name}"
            f" ({'Illegal instruction: ' + SETUP_HINT if name == 'SIGILL' else 'see stderr'}):\n"
            + completed.stderr[-3000:]
        )
    assert 0 == completed.returncode, completed.stderr[-3000:]
    answer = completed.stdout.strip()
    # The passage states the height; a working model on this prompt copies it.
    assert "385" in answer, f"unexpected answer: {answer!r}"
