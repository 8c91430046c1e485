#!/usr/bin/env bash
# Checks that the C++ lines changed since BASE (default: the last commit's
# parent, so CI checks the commit it runs on) follow .clang-format. Prints
# the fix as a diff and fails when they do not. Fix with
#   git clang-format-22 BASE
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tool=$(command -v git-clang-format-22 || true)
if [ -z "$tool" ]; then
  echo "check-format: git-clang-format-22 not found (Debian: clang-format-22)"
  exit 2
fi
base=${1:-HEAD~1}
if ! git rev-parse -q --verify "$base^{commit}" > /dev/null; then
  echo "check-format: no commit '$base' to compare with (a shallow clone?); nothing checked"
  exit 0
fi
diff=$("$tool" --binary clang-format-22 --diff --extensions c,cpp,h,cu "$base" -- . || true)
case "$diff" in
  "" | "no modified files to format" | "clang-format did not modify any files")
    echo "check-format: the C++ changed since $base follows .clang-format"
    ;;
  *)
    echo "$diff"
    echo "check-format: the C++ changed since $base is not formatted; run: git clang-format-22 $base"
    exit 1
    ;;
esac
