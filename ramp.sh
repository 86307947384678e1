#!/usr/bin/env bash
# One entry point that installs what is missing, then does the job. Idempotent: a second run
# installs nothing and goes straight to work.
#
#   ./ramp.sh workflow [SNAKEMAKE ARGS...]   set up, then `snakemake --cores 2 all` (default config)
#   ./ramp.sh test [PYTEST ARGS...]          set up, then ruff + the whole test suite
#   ./ramp.sh setup                          only install (Ruby, venv, Python packages, model)
#   ./ramp.sh rerender [SNAKEMAKE ARGS...]   venv only, then redraw the committed figures (no model)
#   ./ramp.sh snakemake ARGS...              any snakemake command inside the project's venv
#   ./ramp.sh unlock                         drop the locks a killed run left (workflow does it)
#
# Environment: RAMP_VENV (default .venv), RAMP_CORES (default 2), RAMP_SKIP_APT=1 to never call apt.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
VENV=${RAMP_VENV:-$ROOT/.venv}
CORES=${RAMP_CORES:-2}
PY=${PYTHON:-python3}

say() { printf '[ramp] %s\n' "$*" >&2; }
die() { printf '[ramp] error: %s\n' "$*" >&2; exit 2; }

APT_UPDATED=0
apt_install() {
    # apt_install PACKAGE... : install the Debian packages that are not installed yet.
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "${RAMP_SKIP_APT:-0}" = 1 ] && die "missing Debian packages: ${missing[*]} (RAMP_SKIP_APT=1 set)"
    command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get: install them by hand"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    if [ "$APT_UPDATED" = 0 ]; then
        say "apt-get update"
        $sudo apt-get update -qq
        APT_UPDATED=1
    fi
    say "apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

setup_system() {
    # Ruby runs the programs; util-linux's unshare holds the sandbox's namespaces
    # (ramp.execution.namespaces); g++ and make build llama-cpp-python, g++ compiles the C++
    # study's programs, and its gcc the sandbox's exec helper (ramp.execution.exec_helper).
    apt_install ruby util-linux ca-certificates g++ make
    command -v "$PY" >/dev/null || apt_install python3 python3-venv python3-dev
    "$PY" -c 'import venv, ensurepip' 2>/dev/null || apt_install python3-venv
}

stamp_of() { cat pyproject.toml requirements/*.txt 2>/dev/null | sha256sum | cut -c1-16; }

# llama.cpp's kernels for Intel AMX (Xeon Sapphire Rapids and later) crash on the first prompt of
# more than one token (SIGSEGV in ggml_backend_amx_mul_mat, llama.cpp issue 20824), and a native
# build (-march=native) compiles them in wherever the CPU has AMX, whatever GGML_AMX_* says.
# Explicit -mno-amx-* flags win over -march=native: the build uses AVX-512 or AVX2 instead.
LLAMA_CFLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"

setup_llama() {
    # llama-cpp-python builds from source, natively for this CPU. Build it with LLAMA_CFLAGS
    # (and the user's CMAKE_ARGS, CFLAGS, CXXFLAGS), never from pip's cache (its wheels are
    # keyed by version, not by flags), and again when the version, the flags or the CPU
    # change. The wheel is kept under ~/.cache/ramp/wheels, keyed by all three, for the next
    # venv.
    local want have wheels
    want="$(grep -i '^llama[-_.]cpp[-_.]python==' requirements/constraints.txt) $LLAMA_CFLAGS"
    want="$want ${CMAKE_ARGS:-} ${CFLAGS:-} ${CXXFLAGS:-}"
    want="$want $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | sha256sum | cut -c1-16)"
    have=$(cat "$VENV/.ramp-llama-build" 2>/dev/null || true)
    [ "$want" = "$have" ] && return 0
    wheels="${XDG_CACHE_HOME:-$HOME/.cache}/ramp/wheels/$(printf '%s' "$want" | sha256sum | cut -c1-16)"
    if ! compgen -G "$wheels/llama_cpp_python-*.whl" >/dev/null; then
        say "building llama-cpp-python (about 5 minutes)"
        rm -rf "$wheels.tmp" "$wheels"
        CFLAGS="$LLAMA_CFLAGS ${CFLAGS:-}" CXXFLAGS="$LLAMA_CFLAGS ${CXXFLAGS:-}" \
            "$VENV/bin/python" -m pip wheel -q \
            --no-cache-dir --no-deps -c requirements/constraints.txt -w "$wheels.tmp" \
            llama-cpp-python
        mv "$wheels.tmp" "$wheels"
    fi
    "$VENV/bin/python" -m pip install -q --force-reinstall --no-deps "$wheels"/llama_cpp_python-*.whl
    echo "$want" > "$VENV/.ramp-llama-build"
}

setup_python() {
    if [ ! -x "$VENV/bin/python" ]; then
        say "creating virtual environment $VENV"
        "$PY" -m venv "$VENV"
        "$VENV/bin/python" -m pip install -q --upgrade pip
    fi
    setup_llama
    local want have
    want=$(stamp_of)
    have=$(cat "$VENV/.ramp-stamp" 2>/dev/null || true)
    if [ "$want" != "$have" ]; then
        say "installing Python packages into $VENV"
        "$VENV/bin/python" -m pip install -q --upgrade pip
        "$VENV/bin/python" -m pip install -q -c requirements/constraints.txt -e ".[dev,models,slurm]"
        echo "$want" > "$VENV/.ramp-stamp"
    fi
}

setup_models() {
    # Installs and verifies the embedded models named (default: those config/config.yaml uses);
    # a no-op when present.
    "$VENV/bin/python" -m ramp models install "$@"
}

setup() {
    setup_system
    setup_python
    setup_models "$@"
}

unlock_if_stale() {
    # A Snakemake killed outright (SIGKILL, a lost SSH session, a preempted node) leaves its
    # locks, and the next run refuses to start. Remove them only when no Snakemake runs in this
    # folder: two runs with different outputs may share it (e.g. two studies side by side).
    compgen -G ".snakemake/locks/*" >/dev/null || return 0
    local pid
    for pid in $(pgrep -f snakemake || true); do
        [ "$pid" != $$ ] && [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$ROOT" ] && return 0
    done
    say "removing the locks of an interrupted run (no Snakemake is running here)"
    "$VENV/bin/snakemake" --unlock --cores 1 >/dev/null 2>&1 || die "snakemake --unlock failed"
}

export LANG=C.UTF-8 LC_ALL=C.UTF-8
cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
    setup) setup ;;
    workflow)
        setup
        unlock_if_stale
        exec "$VENV/bin/snakemake" --cores "$CORES" all "$@"
        ;;
    unlock)
        unlock_if_stale
        ;;
    rerender)
        # The committed figures are drawn from their committed frames: no Ruby, model or data set.
        "$PY" -c 'import venv, ensurepip' 2>/dev/null || apt_install python3 python3-venv
        setup_python
        exec "$VENV/bin/snakemake" --cores "$CORES" rerender "$@"
        ;;
    snakemake)
        setup
        exec "$VENV/bin/snakemake" "$@"
        ;;
    test)
        setup qwen2.5-coder-0.5b  # the tests' small model, not the workflow's default
        # The report's browser test opens it in a real headless Chromium, driven by selenium.
        apt_install chromium chromium-driver
        "$VENV/bin/ruff" check .
        exec "$VENV/bin/python" -m pytest "$@"
        ;;
    *)
        sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
        [ -z "$cmd" ] || die "unknown command '$cmd'"
        exit 2
        ;;
esac
