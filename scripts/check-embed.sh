#!/usr/bin/env bash
# Installs the build into a prefix, builds examples/embed against the installed
# package with find_package, runs it and checks that it printed fused ops;
# then builds examples/aot (a program compiled ahead of time with the
# installed tp-opt, linked with the installed runtime) and runs it, with
# threads and, where the runtime has MPI, as MPI processes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
prefix=$build/install
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" > /dev/null
# Only public headers are installed, and they include only installed ones.
for private in Wire Launch MpiGroup MpirunJob Interrupts; do
  if [ -e "$prefix/include/tp/Runtime/$private.h" ]; then
    echo "check-embed: the private header tp/Runtime/$private.h was installed"
    exit 1
  fi
done
missing=$(cd "$prefix/include" && grep -rhoE '#include "tp(-c)?/[^"]+"' . |
  sed -E 's/#include "(.*)"/\1/' | sort -u |
  while read -r header; do [ -e "$header" ] || echo "$header"; done)
if [ -n "$missing" ]; then
  echo "check-embed: installed headers include headers that are not installed:"
  echo "$missing"
  exit 1
fi
echo "check-embed: the installed headers include only installed headers"
cmake -G Ninja -S "$root/examples/embed" -B "$build/embed" \
  -DCMAKE_PREFIX_PATH="$prefix;/usr/lib/llvm-22" -DCMAKE_BUILD_TYPE=Release > /dev/null
ninja -C "$build/embed" > /dev/null
out=$("$build/embed/tp-embed")
echo "$out"
grep -q "tp.all_gather_matmul" <<<"$out"
grep -q "tp.matmul_reduce_scatter" <<<"$out"
echo "check-embed: the installed package builds an embedder that fuses"

cmake -G Ninja -S "$root/examples/aot" -B "$build/aot" \
  -DCMAKE_PREFIX_PATH="$prefix;/usr/lib/llvm-22" -DCMAKE_BUILD_TYPE=Release > /dev/null
ninja -C "$build/aot" > /dev/null
"$build/aot/tp-aot"
echo "check-embed: the installed package compiles a program ahead of time that runs on 2 ranks"
if [ -x "$build/aot/tp-aot-mpi" ]; then
  # As root in CI, Open MPI wants to be told that is intended.
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    timeout 120 mpirun --oversubscribe -n 2 "$build/aot/tp-aot-mpi"
  echo "check-embed: the same program runs as 2 MPI processes"
fi
