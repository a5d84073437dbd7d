#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks that everything iomatrix builds and tests with is installed. With --install, installs
# what is missing with apt-get (through sudo when not root); otherwise, or where that is not
# possible, names the Debian packages to install and fails. With --mpi, also what iomatrix-mpi
# builds and runs with (`make mpi`, docs/hosts.md): Open MPI's mpicc and mpirun. With --test,
# also what the tests build with (cmocka). Only `make deps` and `make demo` pass --install.
set -u
mpi=false test=false install=false
for a in "$@"; do
    case $a in
    --mpi) mpi=true ;;
    --test) test=true ;;
    --install) install=true ;;
    *) echo "deps.sh: unknown option '$a' (--install, --mpi, --test)" >&2; exit 2 ;;
    esac
done
need=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
have_pc libconfig || need="$need libconfig-dev"
have_pc liburing  || need="$need liburing-dev"
have_pc zlib      || need="$need zlib1g-dev"
have_pc libisal   || need="$need libisal-dev"
have_pc json-c    || need="$need libjson-c-dev"
have_pc blkid     || need="$need libblkid-dev"
have_pc libxml-2.0 || need="$need libxml2-dev"
if $test; then have_pc cmocka || need="$need libcmocka-dev"; fi
# libaio has no pkg-config file on Debian: its header says it is there
have_pc libaio || [ -e /usr/include/libaio.h ] || need="$need libaio-dev"
if $mpi; then
    command -v mpicc >/dev/null 2>&1 || need="$need libopenmpi-dev"
    command -v mpirun >/dev/null 2>&1 || need="$need openmpi-bin"
fi
[ -z "$need" ] && exit 0

if $install && command -v apt-get >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
            echo "iomatrix: missing build dependencies; install them as root:" >&2
            echo "    apt-get install$need" >&2
            exit 1
        fi
    fi
    echo "iomatrix: installing build dependencies:$need" >&2
    $sudo apt-get update -qq >&2 || true
    if DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $need >&2; then exit 0; fi
fi
echo "iomatrix: missing build dependencies; install them with:" >&2
echo "    sudo apt-get install$need" >&2
echo "or run: make deps" >&2
exit 1
