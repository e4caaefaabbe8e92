"""``companion bench players``: each companion level against the others and against random play.

For every game and player count (``TABLES``) and every pairing (``PAIRINGS``), one seat plays the
level under test and every other seat the opponent (a level, or ``random``: uniformly random legal
moves); the tested seat moves round the table game by game (seat = game number mod players), so it
starts as often as anyone. Game *i* of a row uses seed ``seed + i`` for its chance and its players;
the seeds are printed. A shared win counts as 1/k of a win. The win rate has a 95 % Wilson interval
and the even share (1/players) it should clear. Solo games (Prussia, Chains with one player) have no
opponent: their rows give the victory rate (Prussia) or the share of perfect-or-near games (Chains,
score ≥ 20 of 23) for each level and for random play.

``--paired`` (the paired design): luck decides much of a card game, so each seed is played
``players`` times, the tested level in each seat once, with the same cards: chance draws from its
own streams seeded by the seed alone (``Game.chance_stream``: in Chains each deck is one, so a
seat's cards come up in the same order whatever anyone chose), never from the players' generator.
The win rate is still the plain share of games won; its 95 % interval is a t interval over the
seeds' mean shares (the deals are independent; the games within one are not, so a Wilson interval
over games would not fit); when every deal has the same share (all won, say) that interval has no
width, and the row gives the Wilson interval over the deals instead. Where the levels play alike
the two games of a deal cancel the deck's luck and the interval narrows.

Time per decision is the time of ``decide`` (building the seat's view and choosing), one process, so
one core: wall time, and the process's CPU time (what one core spends on it, whatever else the
machine runs); median and 95th percentile per level.

``companion bench players [--games N] [--seed S] [--game ID] [--players N] [--levels A:B,...]
[--every-count] [--markdown FILE] [--rows FILE] [--jobs N] [--paired] [--join FILE]`` (``--every-count``: every player count
each game allows; ``--rows``: append each row to a file as it finishes; ``--jobs``: processes that
share a row's games, the results merged in game order so the row does not change; ``--join``:
print a rows file's parts of one row, run on other seeds, as one row).
"""
from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from typing import Any, Sequence

from companion.engine import Game
from companion.games import game_class, new_game
from companion.players import LEVELS, decide
from companion.console import run_main

TABLES = (("hills", 2), ("wheel", 2), ("wheel", 4), ("spartacus", 3), ("spartacus", 5),
          ("prussia", 2), ("chains", 2), ("chains", 4), ("prussia", 1), ("chains", 1))
"""(game, players) rows of the bench."""
PAIRINGS = (("beginner", "random"), ("good", "random"), ("strong", "random"),
            ("good", "beginner"), ("strong", "good"), ("strong", "beginner"))
"""(tested level, opponents' level) of every multi-player table."""
SOLO_LEVELS = ("random", "beginner", "good", "strong")
NEAR_PERFECT = 20
"""A solo Chains game counts as won at this score or more (a perfect game is 23)."""


def every_count() -> list[tuple[str, int]]:
    """(game, players) for every game of ``TABLES`` and every player count its rules allow."""
    games = dict.fromkeys(game_id for game_id, _ in TABLES)
    out = []
    for game_id in games:
        cls = game_class(game_id)
        out += [(game_id, n) for n in range(cls.min_players, cls.max_players + 1)]
    return out


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion ``successes / n``."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # at p = 0 or 1 an end is exactly 0 or 1 (rounding would print 100.0 % for 0.99999...)
    return (0.0 if p <= 0 else max(0.0, centre - half)), (1.0 if p >= 1 else min(1.0, centre + half))


def play(game_id: str, players: int, levels: Sequence[str], seed: int,
         times: dict[str, list[float]], paired: bool = False) -> Game:
    """One game with ``levels[s]`` at seat ``s``; decision times go to ``times[level]``.
    ``paired``: chance draws from its own streams (one per ``Game.chance_stream``, each seeded
    from ``seed`` alone), never from the players' generator, so the same seed deals the same cards
    to each seat however the players play (the paired design, module's words)."""
    game = new_game(game_id, players)
    rng = random.Random(f"{seed}:players" if paired else seed)
    streams: dict[int, random.Random] = {}
    while not game.is_over():
        if game.is_chance_node():
            chance = rng
            if paired:
                key = game.chance_stream()
                chance = streams.setdefault(key, random.Random(f"{seed}:chance:{key}"))
            game.apply(game.sample_chance(chance))
            continue
        seat = game.current_player()
        level = levels[seat]
        if level == "random":
            game.apply(rng.choice(game.legal_moves()))
            continue
        start, cpu = time.perf_counter(), time.process_time()
        move = decide(game, seat, level, rng)
        times.setdefault(level, []).append(time.perf_counter() - start)
        times.setdefault(f"{level} cpu", []).append(time.process_time() - cpu)
        game.apply(move)
    return game


def solo_won(game: Game) -> bool:
    """Whether a solo game counts as won (Prussia: a victory; Chains: a near-perfect score)."""
    if game.id == "prussia":
        return game.result() in ("victory", "great_victory")
    return game.scores()[0] >= NEAR_PERFECT


def one_game(game_id: str, players: int, tested: str, against: str, i: int, seed: int,
             paired: bool = False) -> tuple[float, dict[str, list[float]]]:
    """Game ``i`` of a row (seed ``seed + i``; paired: seed ``seed + i // players``; the tested
    seat ``i mod players``): the tested seat's share of the win (solo: 1 for a won game) and the
    decision times of that game."""
    times: dict[str, list[float]] = {}
    seat = i % players
    levels = [against] * players
    levels[seat] = tested
    game = play(game_id, players, levels, seed + (i // players if paired else i), times, paired)
    if players == 1:
        return float(solo_won(game)), times
    winners = game.winners()
    return (1 / len(winners) if seat in winners else 0.0), times


def _one_game(task: tuple[str, int, str, str, int, int, bool]) -> tuple[float, dict[str, list[float]]]:
    return one_game(*task)


def t95(df: int) -> float:
    """The two-sided 95 % quantile of Student's t with ``df`` degrees of freedom (Cornish-Fisher
    expansion about the normal quantile; within 0.004 of the table from 9 degrees on, 0.001 from 20)."""
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df)


def paired_interval(shares: Sequence[float], players: int) -> tuple[float, float]:
    """The 95 % interval of the win rate from games played in deals of ``players`` games (game
    ``i`` of deal ``i // players``): a t interval over the deals' mean shares, which are
    independent of each other while a deal's games share their cards. When every deal has the
    same share (all won, all lost, a level against itself) the t interval has no width, which no
    finite sample supports: then it is the Wilson interval over the deals, each deal one trial
    (a deal's share lies in 0–1, so its variance is at most that of a single game's)."""
    deals = [sum(shares[j:j + players]) / players for j in range(0, len(shares), players)]
    n = len(deals)
    mean = sum(deals) / n
    if n < 2:
        return 0.0, 1.0
    variance = sum((d - mean) ** 2 for d in deals) / (n - 1)
    if variance == 0:
        return wilson(sum(deals), n)
    half = t95(n - 1) * math.sqrt(variance / n)
    return max(0.0, mean - half), min(1.0, mean + half)


def row(game_id: str, players: int, tested: str, against: str, games: int, seed: int,
        times: dict[str, list[float]], jobs: int = 1, paired: bool = False) -> dict[str, Any]:
    """Play one row of the bench and measure it; ``jobs`` processes share its games (each game
    depends only on its seed, and the results are merged in game order, so the row is the same).
    ``paired``: every seed is played ``players`` times, the tested level in each seat once, and the
    interval is taken over those deals (``paired_interval``)."""
    paired = paired and players > 1
    if paired and games % players:
        raise ValueError(f"a paired row plays each deal {players} times: {games} games is not a multiple")
    tasks = [(game_id, players, tested, against, i, seed, paired) for i in range(games)]
    if jobs > 1:
        import multiprocessing
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = list(pool.imap(_one_game, tasks, chunksize=max(1, min(20, games // (8 * jobs)))))
    else:
        results = [one_game(*t) for t in tasks]
    wins = 0.0
    for share, game_times in results:
        wins += share
        for key, values in game_times.items():
            times.setdefault(key, []).extend(values)
    seeds = games // players if paired else games
    low, high = (paired_interval([share for share, _ in results], players) if paired
                 else wilson(wins, games))
    return {"game": game_id, "players": players, "level": tested, "against": against,
            "games": games, "seeds": f"{seed}–{seed + seeds - 1}", "win": wins / games,
            "low": low, "high": high, "even": 1 / players if players > 1 else None,
            "design": "paired" if paired else "independent",
            "shares": [share for share, _ in results]}


def joined(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One row from rows of the same table and pairing run on other seeds (``--rows`` lines): the
    games' shares put together and the interval taken again over all of them. The seeds may leave
    gaps (parts run side by side and stopped: "0–39, 100–139"), never overlap (a seed counted twice)."""
    parts = sorted(parts, key=lambda p: int(p["seeds"].split("–")[0]))
    ranges: list[list[int]] = []
    for p in parts:
        start, end = (int(x) for x in p["seeds"].split("–"))
        if ranges and start <= ranges[-1][1]:
            raise ValueError(f"rows on seeds {ranges[-1][0]}–{ranges[-1][1]} and {p['seeds']} overlap")
        if ranges and start == ranges[-1][1] + 1:
            ranges[-1][1] = end
        else:
            ranges.append([start, end])
    first, shares = parts[0], [s for p in parts for s in p["shares"]]
    paired, players = first["design"] == "paired", first["players"]
    wins = sum(shares)
    low, high = paired_interval(shares, players) if paired else wilson(wins, len(shares))
    return dict(first, games=len(shares), seeds=", ".join(f"{a}–{b}" for a, b in ranges),
                win=wins / len(shares), low=low, high=high, shares=shares)


def join_file(path: str) -> list[dict[str, Any]]:
    """The rows of a ``--rows`` file, each table and pairing's parts joined in file order."""
    import json
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            key = (r["game"], r["players"], r["level"], r["against"], r.get("design", "independent"))
            groups.setdefault(key, []).append(r)
    return [joined(parts) for parts in groups.values()]


def _ms(values: list[float], q: float) -> str:
    if not values:
        return "–"
    values = sorted(values)
    return f"{values[min(len(values) - 1, int(q * len(values)))] * 1000:.1f}"


def markdown(rows: list[dict[str, Any]], times: dict[tuple[str, int], dict[str, list[float]]]) -> str:
    """The rows as a Markdown table, then decision times per table and level."""
    out = ["| game | players | level | against | games (seeds) | win rate | 95 % interval | even share |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        # one decimal where it matters: the even share of 8 players is 12.5 %, not "12%"
        even = f"{r['even']:.1%}".replace(".0%", "%") if r["even"] is not None else "–"
        clear = "" if r["even"] is None else (" above" if r["low"] > r["even"] else
                                              " below" if r["high"] < r["even"] else " touches")
        seeds = r["seeds"] + (", each in every seat" if r.get("design") == "paired" else "")
        out.append(f"| {r['game']} | {r['players']} | {r['level']} | {r['against']} | {r['games']} "
                   f"({seeds}) | {r['win']:.1%} | {r['low']:.1%}–{r['high']:.1%}{clear} | {even} |")
    if not any(times.values()):
        return "\n".join(out)
    out += ["", "| game | players | level | decisions | median ms | p95 ms | CPU median ms | CPU p95 ms |",
            "|---|---|---|---|---|---|---|---|"]
    for (game_id, players), per in times.items():
        for level in LEVELS:
            if per.get(level):
                v, c = per[level], per[f"{level} cpu"]
                out.append(f"| {game_id} | {players} | {level} | {len(v)} | {_ms(v, 0.5)} | {_ms(v, 0.95)} "
                           f"| {_ms(c, 0.5)} | {_ms(c, 0.95)} |")
    return "\n".join(out)


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the ``--jobs`` workers)."""
    import resource
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _append_row(path: str, r: dict[str, Any], times: dict[str, list[float]], wall: float,
                cpu: float) -> None:
    """Append a measured row, with its decision times (CPU median and p95 ms per level), wall time
    and the load average, to ``path`` as one JSON line (with each game's share of the win, so rows
    run in parts, say seeds 0–249 and 250–499, can be joined: ``joined``)."""
    import json
    import os
    out = dict(r, wall_s=round(wall, 1), cpu_s=round(cpu, 1), loadavg=os.getloadavg()[0],
               finished=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
    for level in LEVELS:
        c = times.get(f"{level} cpu")
        if c:
            out[f"{level}_decisions"] = len(c)
            out[f"{level}_cpu_median_ms"] = float(_ms(c, 0.5))
            out[f"{level}_cpu_p95_ms"] = float(_ms(c, 0.95))
            out[f"{level}_cpu_mean_ms"] = round(1000 * statistics.fmean(c), 1)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(out, ensure_ascii=False) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bench and print its table (``--markdown`` also writes it to a file)."""
    parser = argparse.ArgumentParser(prog="companion bench players", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games per row (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of a row's first game")
    parser.add_argument("--game", help="only this game id")
    parser.add_argument("--players", type=int, help="only this player count")
    parser.add_argument("--levels", help="only these pairings, e.g. strong:good,good:beginner")
    parser.add_argument("--every-count", action="store_true",
                        help="every player count each game allows, not only the usual tables")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table to FILE")
    parser.add_argument("--rows", metavar="FILE",
                        help="append each row to FILE as soon as it is measured (one JSON object a line)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes that share a row's games (default 1; the rows do not change)")
    parser.add_argument("--paired", action="store_true",
                        help="play each seed once with the tested level in every seat (the same cards "
                             "for each seat), the interval over the seeds (--games: a multiple of the players)")
    parser.add_argument("--join", metavar="FILE",
                        help="print the rows of a --rows FILE, rows of one table and pairing run on "
                             "other seeds joined into one (nothing is played)")
    args = parser.parse_args(argv)
    if args.join:
        print(markdown(join_file(args.join), {}))
        return 0
    pairs = PAIRINGS
    if args.levels:
        pairs = tuple(tuple(p.split(":")) for p in args.levels.split(","))   # type: ignore[misc]
        for p in pairs:
            if len(p) != 2 or any(x not in (*LEVELS, "random") for x in p):
                parser.error(f"--levels takes LEVEL:LEVEL pairs of {', '.join(LEVELS)}, random")
    rows, times = [], {}
    for game_id, players in (every_count() if args.every_count else TABLES):
        if (args.game and game_id != args.game) or (args.players and players != args.players):
            continue
        per: dict[str, list[float]] = times.setdefault((game_id, players), {})
        todo = ([(lv, "-") for lv in SOLO_LEVELS if any(lv in p for p in pairs)] if players == 1
                else pairs)
        for tested, against in todo:
            start = time.perf_counter()
            mine: dict[str, list[float]] = {}
            cpu = _cpu()
            if args.paired and players > 1 and args.games % players:
                parser.error(f"--paired: --games must be a multiple of {players} ({game_id} with {players})")
            r = row(game_id, players, tested, against, args.games, args.seed, mine, args.jobs, args.paired)
            for key, values in mine.items():
                per.setdefault(key, []).extend(values)
            rows.append(r)
            if args.rows:
                _append_row(args.rows, r, mine, time.perf_counter() - start, _cpu() - cpu)
            print(f"{game_id} {players}p {tested} vs {against}: {r['win']:.1%} "
                  f"[{r['low']:.1%}, {r['high']:.1%}] over {args.games} games, seeds {r['seeds']}"
                  f"{' (paired: each seed in every seat, interval over the seeds)' if r['design'] == 'paired' else ''}"
                  f" ({time.perf_counter() - start:.0f} s)", flush=True)
    table = markdown(rows, times)
    print(table)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    run_main(main)
