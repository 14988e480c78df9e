#!/usr/bin/env bash
# Instruction counts of the core (valgrind --tool=callgrind): repeatable whatever else the
# machine is doing, unlike wall time.
# Usage: bash bench/callgrind.sh [batch|count|race-batch|race-count|pubeval] [N]
# batch, count: instructions per generation spent in the core's generate() for the first
#   N generations (default 4,200) of the contact vector workload (plays_batch,
#   count_plays_batch); race-batch, race-count: the same on the race vector workload.
#   Costs are zeroed at the timed call's dice check, so the warm-up call before it (and
#   counting's one-time bear-off table, filled then) is left out.
# pubeval: instructions per turn of N (default 300) pubeval self-play games played in the
#   one compiled game loop (fastgen.sim._play.play_range: rollout(policy="pubeval"), one
#   thread), and the share
#   of it in the core's generate() and in choosing the play (pub_choose, in
#   fastgen.players._pubeval).
set -euo pipefail
mode=${1:-batch}
if [ "$mode" = pubeval ]; then n=${2:-300}; else n=${2:-4200}; fi
out=$(mktemp -d)
PY=$(python3 -c 'import sys; print(sys.executable)')
export PYTHONPATH="$(cd "$(dirname "$0")/.." && pwd)${PYTHONPATH:+:$PYTHONPATH}"  # this checkout's fastgen
cat > "$out/run.py" <<PYEOF
import fastgen
from fastgen.cli.workload import vector_workload
if "$mode" == "pubeval":
    fastgen.rollout(games=2, policy="pubeval", seed=2)
    print("turns", fastgen.rollout(games=$n, policy="pubeval", seed=1, engine="native").total_turns)
else:
    b, d = vector_workload(("race",) if "$mode".startswith("race-") else ("contact",))
    b, d = b[:$n], d[:$n]
    fastgen.count_plays_batch(b[:10], d[:10])
    (fastgen.plays_batch if "$mode".endswith("batch") else fastgen.count_plays_batch)(b, d)
PYEOF
zero=()
[ "$mode" = pubeval ] || zero=(--zero-before='*first_bad_dice*')  # the timed call's as_dice_batch
if ! OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind "${zero[@]}" --callgrind-out-file="$out/cg.out" "$PY" "$out/run.py" >"$out/log" 2>&1; then
  tail -20 "$out/log"; exit 1
fi
# --threshold=100: list every function (recursive functions count over 100% inclusive)
callgrind_annotate --inclusive=yes --threshold=100 "$out/cg.out" 2>/dev/null >"$out/ann"
count() {  # inclusive instructions of function $3 of extension fastgen.$1.$2 (0 when absent)
  (grep -E "$2\.c:__pyx_(f|pw)_7fastgen_${#1}$1_${#2}$2_[0-9]*$3(\.part\.0)? " "$out/ann" || true) | head -1 | awk '{gsub(",", "", $1); print $1 + 0}'
}
gen=$(count core _core generate)
if [ "$mode" = pubeval ]; then
  turns=$(grep -E "^turns" "$out/log" | awk '{print $2}')
  games=$(count sim _play play_range)
  choose=$(count players _pubeval pub_choose)
  echo "mode=pubeval games=$n turns=$turns per_turn=$((games / turns)) generate=$((gen / turns)) pub_choose=$((choose / turns))"
else
  echo "mode=$mode generations=$n instructions_in_generate=$gen per_generation=$((gen / n))"
fi
rm -rf "$out"
