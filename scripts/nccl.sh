#!/usr/bin/env bash
# Prints a directory holding libnccl.so, for LD_LIBRARY_PATH: warpcheck
# loads NCCL by that name (through cudarc), while the NCCL that PyTorch's
# wheels ship (nvidia-nccl) is libnccl.so.2. Links it under /tmp when only
# that one is found. Fails (exit 1) without any NCCL.
set -euo pipefail
for dir in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }} /usr/lib/x86_64-linux-gnu /usr/local/cuda/lib64; do
    [[ -e "$dir/libnccl.so" ]] && { echo "$dir"; exit 0; }
done
found=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib", "libnccl.so.2"))' 2>/dev/null || true)
if [[ -z "$found" || ! -e "$found" ]]; then
    found=$(find / -name 'libnccl.so.2' -not -path '/proc/*' 2>/dev/null | head -1 || true)
fi
[[ -n "$found" ]] || { echo "no libnccl.so.2 found" >&2; exit 1; }
link=/tmp/warpcheck-nccl
mkdir -p "$link"
ln -sf "$found" "$link/libnccl.so"
echo "$link"
