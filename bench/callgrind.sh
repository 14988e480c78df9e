#!/usr/bin/env bash
# Instruction counts of the core (valgrind --tool=callgrind): repeatable whatever else the
# machine is doing, unlike wall time. Usage: bash bench/callgrind.sh [batch|count] [N]
# Prints instructions per generation spent in the core's generate() for the first N
# generations (default 4,200) of the contact vector workload.
set -euo pipefail
mode=${1:-batch}
n=${2:-4200}
out=$(mktemp -d)
PY=$(python3 -c 'import sys; print(sys.executable)')
export PYTHONPATH="$(cd "$(dirname "$0")/.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"  # this checkout's fastgen
cat > "$out/run.py" <<PYEOF
import fastgen
from fastgen.workload import vector_workload
b, d = vector_workload(("contact",))
b, d = b[:$n], d[:$n]
fastgen.count_plays_batch(b[:10], d[:10])
(fastgen.plays_batch if "$mode" == "batch" else fastgen.count_plays_batch)(b, d)
PYEOF
if ! OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "$PY" "$out/run.py" >"$out/log" 2>&1; then
  tail -20 "$out/log"; exit 1
fi
ir=$(callgrind_annotate --inclusive=yes --threshold=100 "$out/cg.out" 2>/dev/null | grep -E "_core\.c:__pyx_f_7fastgen_5_core_generate" | head -1 | awk '{gsub(",", "", $1); print $1}')
echo "mode=$mode generations=$n instructions_in_generate=$ir per_generation=$((ir / n))"
rm -rf "$out"
