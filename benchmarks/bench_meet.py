"""Players who meet (issue 51): the exact joint chain under capture to the start.

Targets: Milton Bradley with ``capture="start"``, 2 players exact in under 1 s and 3
players (531,441 joint states) in under 30 s on 2 cores, with the peak memory stated
(NumPy's allocations, traced). Each row times ``expected_game_length`` on a fresh board
(so the compile of the board is included) and gives the win chances it found; the
independent-players answer (no capture) is timed beside it.
"""

from __future__ import annotations

from benchmarks._util import median_times, peak_python_memory, row
from snl_numeric import boards, expected_game_length

TARGET_S = {2: 1.0, 3: 30.0}


def _fresh(capture):
    return boards.get("milton-bradley").replace(capture=capture)


def run(repeats: int = 3, quick: bool = False) -> list[dict]:
    rows = []
    for k in (2, 3):
        reps = 1 if quick or k == 3 else repeats
        for capture in ("start", None):
            wall, cpu = median_times(lambda k=k, c=capture: expected_game_length(_fresh(c), k),
                                     reps)
            game, peak = peak_python_memory(lambda k=k, c=capture: expected_game_length(
                _fresh(c), k))
            wins = ", ".join(f"{w:.6f}" for w in game.win_probabilities)
            note = (f"wins [{wins}], mean rounds {game.mean_rounds:.4f}, peak "
                    f"{peak / 2**20:.1f} MiB")
            if capture == "start":
                note += f"; target <{TARGET_S[k]:g} s: {'met' if wall < TARGET_S[k] else 'MISSED'}"
            rows.append(row(f"expected_game_length MB k={k} capture={capture!r}", wall, note=note,
                            ours_cpu_s=cpu, method="snl_numeric.meet joint chain"
                            if capture else "independent lengths"))
    return rows


if __name__ == "__main__":
    import sys

    for r in run(quick="--quick" in sys.argv):
        print(r)
