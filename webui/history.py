"""The host's History page: plays by date (filter by game and player), per-player and per-game
statistics with SVG charts, export (CSV, JSON, BG Stats) and Rematch with the same players in one tap.

Only the host may see it: a request from the server's own machine, or a browser holding the host
cookie of a table of this server (the host who created a table from their phone). Players' phones
hold join cookies, which do not open it.
"""
from __future__ import annotations

import json
from datetime import datetime
from urllib.parse import urlsplit
from typing import Any, NoReturn

from flask import Blueprint, Response, make_response, render_template, request, url_for

from companion.games import GAME_IDS, game_class
from companion.history import dates, exchange, query
from companion.history.bgstats import anonymous
from companion.history.record import read_plays
from webui.charts import PALETTE, bar_rows, line_chart
from webui.common import ApiError, get_session, lang, require_role, tables
from webui.i18n import add_strings, t

bp = Blueprint("history", __name__)

RECENT = 100
"""Plays listed on the page unless the host asks for all (statistics always count every play)."""
CHART_PLAYS = 30
"""The score chart of a game shows its last this many plays (eight most frequent players)."""

HISTORY_STRINGS: dict[str, tuple[str, str]] = {
    "history": ("History", "記録"),
    "history_host_only": ("The history is the host's: open it on the host's machine, or on the phone "
                          "that created a table.",
                          "記録はホスト専用です。ホストのコンピューター、またはテーブルを作った端末で開いてください。"),
    "all_games": ("All games", "すべてのゲーム"),
    "all_players": ("All players", "すべてのプレイヤー"),
    "filter": ("Show", "表示"),
    "plays": ("Plays", "プレイ"),
    "play_time": ("Time played", "プレイ時間"),
    "players_n": ("Players", "プレイヤー"),
    "no_plays": ("No plays yet: a game is recorded here when it ends.",
                 "まだ記録がありません。ゲームが終わるとここに記録されます。"),
    "win_share": ("Share of wins", "勝利の割合"),
    "win_rate": ("Win %", "勝率"),
    "average": ("Avg", "平均"),
    "best": ("Best", "最高"),
    "player": ("Player", "プレイヤー"),
    "score_over_plays": ("Scores, play by play", "プレイごとの得点"),
    "distribution": ("Scores of all seats", "全員の得点分布"),
    "kept_camera": ("camera", "カメラ"),
    "kept_taps": ("taps", "タップ"),
    "kept_both": ("camera + taps", "カメラ+タップ"),
    "rematch": ("Rematch: same players", "同じメンバーで再戦"),
    "rematch_short": ("Rematch", "再戦"),
    "rematch_join": ("Rematch: join the new table", "再戦:新しいテーブルに参加"),
    "rematch_host": ("Rematch: open the new table", "再戦:新しいテーブルを開く"),
    "export_history": ("Export and backup", "書き出しとバックアップ"),
    "export_hint": ("Every play, or the days between these dates. JSON is a backup that "
                    "`companion history import` restores exactly; the BG Stats file holds every play "
                    "with its real date and duration.",
                    "全プレイ、またはこの期間のプレイ。JSONは`companion history import`で完全に復元できる"
                    "バックアップ、BG Statsファイルは実際の日時と所要時間つきの全プレイです。"),
    "date_from": ("From", "開始日"),
    "date_to": ("To", "終了日"),
    "known_players": ("Known players: tap to add", "登録済みのプレイヤー(タップで追加)"),
    "show_all": ("Show all plays", "すべてのプレイを表示"),
}
add_strings(HISTORY_STRINGS)


@bp.record_once
def _install(state: Any) -> None:
    """Template helpers: ``when`` (a human date), ``known_players()``, ``rematch_of(table id)``."""
    env = state.app.jinja_env
    env.filters["when"] = lambda value, language="en", clock=True: dates.human(value, language, clock=clock)
    env.filters["duration"] = lambda seconds, language="en": dates.duration(seconds, language)
    env.filters["clock"] = lambda value: dates.instant(value).strftime("%H:%M")
    env.globals.update(known_players=known_players, rematch_of=rematch_of)


def allowed() -> bool:
    """True for the host: this machine, or a browser holding a valid host cookie of some table."""
    if request.remote_addr in ("127.0.0.1", "::1", None):
        return True
    for key, token in request.cookies.items():
        if key.startswith("tch_") and tables().role(key[4:], token) == "host":
            return True
    return False


def known_players() -> list[str]:
    """The known players for the create form's picker: for the host only (the names are the
    host's records, like the tables list that only this machine sees)."""
    return query.known_players(tables().store) if allowed() else []


def _refuse() -> NoReturn:
    """403 in the reader's language (a page for browsers, JSON for machines)."""
    en, ja = HISTORY_STRINGS["history_host_only"]
    raise ApiError(403, en, ja=ja)


def _bad_dates(err: Exception) -> NoReturn:
    raise ApiError(400, str(err), ja="日付は 2026-11-24 のように「年-月-日」で指定してください。")


def _filter() -> query.Filter:
    game = request.args.get("game") or None
    player = (request.args.get("player") or "").strip() or None
    since, until = request.args.get("from"), request.args.get("to")
    try:
        return query.Filter(game if game in GAME_IDS else None, player,
                            dates.day_bounds(since, end=False) if since else None,
                            dates.day_bounds(until, end=True) if until else None)
    except ValueError as err:
        raise exchange.HistoryError(str(err)) from None


def title(game: str, language: str) -> str:
    """A game's title in the page language."""
    cls = game_class(game)
    return cls.title_ja if language == "ja" else cls.title


def _by_day(plays: list[Any], language: str) -> list[tuple[str, list[Any]]]:
    days: dict[str, list[Any]] = {}
    for play in reversed(plays):   # newest first
        days.setdefault(dates.human(play.started, language, clock=False), []).append(play)
    return list(days.items())


def _game_section(plays: list[Any], game: str, language: str, colour: dict[str, str]) -> dict[str, Any]:
    mine = [p for p in plays if p.game == game]
    stats = [r for r in query.player_stats(mine)]
    window = max(0, len(mine) - CHART_PLAYS)   # the last plays: a phone-wide chart stays readable
    lines = [(name, [(x, y) for x, y in pts if x > window])
             for name, pts in query.score_lines(mine, game).items()]
    lines = sorted((line for line in lines if line[1]), key=lambda kv: -len(kv[1]))[:8]
    dist = query.distribution(mine, game)
    most = max((c for _, _, c in dist), default=1) or 1
    return {"game": game, "title": title(game, language), "plays": len(mine), "stats": stats,
            "line": line_chart(lines, label=t("score_over_plays", language), x_first=window + 1,
                               colours=[colour.get(name, PALETTE[-1]) for name, _ in lines]),
            "distribution": bar_rows([(f"{lo}" if lo == hi else f"{lo} … {hi}", c / most,
                                       counted(c, "seat", language))
                                      for lo, hi, c in dist], label=t("distribution", language), colours=[])}


COUNTED = {"win": ("win", "wins", "勝"), "play": ("play", "plays", "回"), "seat": ("seat", "seats", "席")}


def counted(count: int, what: str, language: str) -> str:
    """``1 win``, ``3 wins`` / ``3勝`` (``what``: win, play or seat)."""
    one, many, unit = COUNTED[what]
    if language == "ja":
        return f"{count}{unit}"
    return f"{count} {one if count == 1 else many}"


@bp.get("/history")
def page() -> Any:
    """The History page (host only)."""
    if not allowed():
        _refuse()
    language = lang()
    store = tables().store
    try:
        which = _filter()
    except exchange.HistoryError as err:
        _bad_dates(err)
    plays = query.plays(store, which)
    everything = query.plays(store) if (which.game or which.player) else plays
    share = query.win_share(plays)
    # one colour per person on every chart of the page, whatever the filter
    colour = {name: PALETTE[i % len(PALETTE)] for i, (name, _, _) in enumerate(query.win_share(everything))}
    total_wins = sum(w for _, w, _ in share) or 1
    chart = bar_rows([(name, w / total_wins, f"{counted(w, 'win', language)} · {round(100 * w / total_wins)}%")
                      for name, w, _ in share[:10]], label=t("win_share", language),
                     colours=[colour.get(name, PALETTE[-1]) for name, _, _ in share[:10]])
    games = [which.game] if which.game else query.games_played(plays)
    return render_template(
        "history.html", lang=language, plays=plays, which=which,
        days=_by_day(plays if request.args.get("all") else plays[-RECENT:], language),
        hidden=0 if request.args.get("all") else max(0, len(plays) - RECENT),
        games=[{"id": g, "title": title(g, language)} for g in GAME_IDS],
        players=query.known_players(store), share_chart=chart, title=title,
        sections=[_game_section(plays, g, language, colour) for g in games],
        time_played=dates.duration(sum(p.duration for p in plays), language),
        people=len({s.person for p in plays for s in p.seats if s.person}),
        played_games=query.games_played(everything), counted=counted, seat_label=seat_label,
        play_options=play_options)


@bp.get("/history/export")
def export() -> Response:
    """Download every play (or a date range) as CSV, JSON or a BG Stats file (host only)."""
    if not allowed():
        _refuse()
    fmt = request.args.get("format", "json")
    if fmt not in exchange.FORMATS:
        raise ApiError(400, f"format must be one of {', '.join(exchange.FORMATS)}",
                       ja=f"形式は {', '.join(exchange.FORMATS)} のいずれかです。")
    try:
        which = _filter()
    except exchange.HistoryError as err:
        _bad_dates(err)
    store = tables().store
    text = exchange.export(store, query.plays(store, which), fmt,
                           everything=not (which.since or which.until or which.game or which.player))
    stamp = datetime.now().strftime("%Y-%m-%d")
    name = {"csv": f"plays-{stamp}.csv", "json": f"history-{stamp}.json",
            "bgstats": f"bgstats-import-{stamp}.json"}[fmt]
    resp = make_response(text)
    resp.mimetype = "text/csv" if fmt == "csv" else "application/json"
    resp.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return resp


def rematch_of(table_id: str) -> dict[str, str] | None:
    """The table a rematch of ``table_id`` was set up at: {"id", "code"}, or None."""
    row = tables().store._db().execute(
        "SELECT data FROM entries WHERE session = ? AND kind = 'note' AND data LIKE '%\"rematch\"%' "
        "ORDER BY version DESC LIMIT 1", (table_id,)).fetchone()
    if row is None:
        return None
    found = json.loads(row[0]).get("rematch")
    return found if isinstance(found, dict) and isinstance(found.get("id"), str) else None


def _host_of(table_id: str) -> Response:
    from webui.phone import redirect_with_token
    return redirect_with_token(url_for("host.table", table_id=table_id), f"tch_{table_id}",
                               tables().host_token(table_id))


@bp.post("/history/rematch")
def rematch() -> Any:
    """A new table with the same game, players, seats and options, the start player one seat on:
    from a finished table (``table``: its host only) or from a play of the history (``play``)."""
    origin = request.headers.get("Origin")
    if origin and urlsplit(origin).netloc != request.host:
        # a page of another site posting to this server (the host's machine is trusted as such)
        raise ApiError(403, "Refused: a request from another site.", ja="拒否しました: 別のサイトからのリクエストです。")
    table_id, play_id = request.form.get("table"), request.form.get("play")
    if table_id:
        require_role(table_id, "host", allow_cookie=True)
        s = get_session(table_id)
        if not s.is_over():
            raise ApiError(409, "The game is still on: end it first.", ja="ゲームはまだ続いています。先に終了してください。")
        already = rematch_of(table_id)
        if already:
            return _host_of(already["id"])
        game, names, options = s.game_id, list(s.names), dict(s.options)
        options["start_player"] = (s.game.options.get("start_player", 0) + 1) % s.players
        rounds, target = s.rounds, s.target
    elif play_id:
        if not allowed():
            _refuse()
        found = read_plays(tables().store._db(), "WHERE p.id = ?", (play_id,))
        if not found:
            raise ApiError(404, f"No play {play_id!r} in the history.", ja=f"記録にプレイ{play_id!r}はありません。")
        play = found[0]
        game, names, options = play.game, play.names, dict(play.options)
        options["start_player"] = (options.get("start_player", 0) + 1) % len(names)
        rounds = target = None
    else:
        raise ApiError(400, "Say which table or play to rematch.", ja="再戦するテーブルかプレイを指定してください。")
    new = tables().create(game, len(names), names=names, options=options, rounds=rounds, target=target)
    if table_id:
        with tables().lock(table_id):
            s.note({"rematch": {"id": new.id, "code": new.code}}, by="host")
        tables().changed(table_id)
    return _host_of(new.id)


def play_options(play: Any, language: str) -> str:
    """The options a play changed from the game's defaults, in words (``Jokers · Banners``)."""
    from webui.i18n import choice_words, option_words
    said = []
    for opt in game_class(play.game).options_spec:
        value = play.options.get(opt.name, opt.default)
        if opt.name == "start_player" or value == opt.default:
            continue
        name, _ = option_words(play.game, opt.name, language)
        if value is True:
            said.append(name)
        else:
            off = "なし" if language == "ja" else "off"
            said.append(f"{name}: {off if value is False else choice_words(play.game, opt.name, value, language)}")
    return " · ".join(said)


def seat_label(seat: Any, language: str) -> str:
    """A seat as the page names it: the person's name, or "Seat 2" / 「席2」 for a seat nobody named."""
    if not anonymous(seat):
        return str(seat.name)
    return f"席{seat.seat + 1}" if language == "ja" else f"Seat {seat.seat + 1}"
