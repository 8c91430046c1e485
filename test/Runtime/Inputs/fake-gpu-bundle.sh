#!/bin/sh
# fake-gpu-bundle.sh TP_RUN DIR: a stand-in for scripts/gpu-bundle.sh's
# archive, DIR/tp-gpu.tar.xz, for testing scripts/gpu-check.sh where there is
# no GPU. Its programs are wrappers of this build's (found next to TP_RUN, and
# the unit tests under test/Unit), so the CUDA device query really runs and
# really fails. Written with Python's tarfile, which gpu-check.sh also falls
# back to for unpacking.
set -eu
tools=$(dirname "$1")
dir=$2
units=$(dirname "$tools")/test/Unit
mkdir -p "$dir/tp-gpu/bin" "$dir/tp-gpu/lib"
for p in "$tools/tp-opt" "$tools/tp-run" "$tools/tp-gpu-bench" \
         "$tools/tp-launch-probe" "$units/TPCudaTests"; do
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$p" > "$dir/tp-gpu/bin/${p##*/}"
  chmod +x "$dir/tp-gpu/bin/${p##*/}"
done
python3 -c 'import sys, tarfile
with tarfile.open(sys.argv[1], "w:xz") as t:
    t.add(sys.argv[2], arcname="tp-gpu")' "$dir/tp-gpu.tar.xz" "$dir/tp-gpu"
