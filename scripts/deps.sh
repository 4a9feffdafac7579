#!/usr/bin/env bash
# Installs what Tessera needs and the machine lacks (Debian 12). Installs
# nothing when everything is present, so it is cheap to run before every
# `make run` / `make test` / `make bench`.
#   scripts/deps.sh build   compiler, python3, pkg-config, cmake, man, clang (build, tests, fuzzing),
#                           clang-16 and LLVM 16 (the CAS-DSM pass, tsrcc), libomp 16
#   scripts/deps.sh bench   also Open MPI and matplotlib (benchmarks)
#   scripts/deps.sh ssh | slurm | mpirun | mpich | netfilter | ucx   what one cluster test
#                           needs (tests/sh/cluster_*.sh, udp_netns.sh): sshd,
#                           Slurm, Open MPI, MPICH (beside Open MPI, which stays the
#                           default mpirun and mpicc by its priority)
set -euo pipefail
mode=${1:-build}

need_apt=()
command -v cc >/dev/null || need_apt+=(gcc libc6-dev)
command -v make >/dev/null || need_apt+=(make)
command -v python3 >/dev/null || need_apt+=(python3)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
# The UCX backend (TSR_TRANSPORT=ucx) and its tools; the Makefile builds it
# when pkg-config finds UCX, and leaves it out otherwise
pkg-config --exists ucx 2>/dev/null || need_apt+=(libucx-dev)
command -v m4 >/dev/null || need_apt+=(m4) # PARMACS programs (share/tessera/c.m4.tessera)
command -v cmake >/dev/null || need_apt+=(cmake) # tests/sh/install_cmake.sh: find_package(Tessera)
command -v man >/dev/null || need_apt+=(man-db) # the same: man -l on the installed pages
command -v clang >/dev/null || need_apt+=(clang) # the fuzz targets (make fuzz)
# CAS-DSM's pass plugin, tsrcc and the pass's FileCheck tests (docs/CAS.md)
command -v clang-16 >/dev/null || need_apt+=(clang-16)
[ -x /usr/lib/llvm-16/bin/llvm-config ] || need_apt+=(llvm-16-dev)
[ -x /usr/lib/llvm-16/bin/FileCheck ] || need_apt+=(llvm-16-tools)
# clang-16's OpenMP runtime: the reference builds of tests/sh/omp.sh (docs/OPENMP.md)
[ -f /usr/lib/llvm-16/lib/libomp.so ] || need_apt+=(libomp-16-dev)
if [ "$mode" = bench ]; then
    command -v mpicc >/dev/null || need_apt+=(openmpi-bin libopenmpi-dev)
    command -v oshcc >/dev/null || need_apt+=(openmpi-bin libopenmpi-dev) # bench/themis.sh
fi

case $mode in
ssh) command -v /usr/sbin/sshd >/dev/null || need_apt+=(openssh-server openssh-client) ;;
slurm) command -v slurmd >/dev/null && command -v slurmctld >/dev/null && command -v srun >/dev/null ||
       need_apt+=(slurmd slurmctld slurm-client) ;;
mpirun) command -v mpirun.openmpi >/dev/null || need_apt+=(openmpi-bin) ;;
mpich) command -v mpirun.mpich >/dev/null || need_apt+=(mpich) ;;
ucx) command -v ucx_info >/dev/null || need_apt+=(ucx-utils) ;;
netfilter) command -v iptables >/dev/null || need_apt+=(iptables) ;;
esac

if [ ${#need_apt[@]} -gt 0 ]; then
    echo "deps: installing ${need_apt[*]}"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    # Tests that install at once wait for one another's dpkg lock.
    $sudo_cmd apt-get -o DPkg::Lock::Timeout=120 update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get -o DPkg::Lock::Timeout=120 install -y -qq \
        "${need_apt[@]}" >/dev/null
fi

# Plots for the benchmark harness; optional for the build and the tests.
if [ "$mode" = bench ] && ! python3 -c 'import matplotlib' 2>/dev/null; then
    echo "deps: installing matplotlib"
    python3 -m pip install -q matplotlib || echo "deps: matplotlib unavailable; plots will be skipped" >&2
fi
exit 0
