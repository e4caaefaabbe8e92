"""The host's History page: plays by date (filter by game and player), per-player and per-game
statistics with SVG charts, export (CSV, JSON, BG Stats) and Rematch with the same players in one tap.

Only the host may see it: a request from the server's own machine, or a browser holding the host
cookie of a table of this server (the host who created a table from their phone). Players' phones
hold join cookies, which do not open it.
"""
from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from urllib.parse import urlsplit
from typing import Any, NoReturn

from flask import Blueprint, Response, current_app, make_response, render_template, request, url_for

from companion import dates
from companion.games import GAME_IDS, game_class
from companion.history import bgstats, edit, exchange, query
from companion.history.bgstats import anonymous
from companion.history.record import UNKNOWN_WORDS, read_plays
from companion.session.autoplay import companion_label, companion_name
from webui.api.api import companion_names, level_words
from webui.camera.camera import follow_rematch
from webui.core.charts import PALETTE, bar_rows, column_chart, line_chart, seat_colours
from webui.core.common import TOKEN_HEADER, ApiError, get_session, lang, require_role, tables, too_many
from webui.core.guard import client, csrf_ok, csrf_token, limit, table_created
from webui.core.owner import is_owner
from webui.core.i18n import N_, Nn_, Text, both, choice_words, nt, option_words, t
from webui.phone.routes import redirect_with_token

bp = Blueprint("history", __name__, template_folder="templates", static_folder="static",
               static_url_path="/static/history")

RECENT = 100
"""Plays listed on the page unless the host asks for all (statistics always count every play)."""
CHART_PLAYS = 30
"""The score chart of a game shows its last this many plays (eight most frequent players)."""



@bp.record_once
def _install(state: Any) -> None:
    """Template helpers: ``when`` (a human date), ``known_players()``, ``known_locations()``,
    ``rematch_of(table id)``."""
    env = state.app.jinja_env
    env.filters["when"] = lambda value, language="en", clock=True: dates.human(value, language, clock=clock)
    env.filters["duration"] = lambda seconds, language="en": dates.duration(seconds, language)
    env.filters["clock"] = lambda value: dates.instant(value).strftime("%H:%M")
    env.globals.update(known_players=known_players, known_locations=known_locations, rematch_of=rematch_of,
                       scoped_url=scoped_url, unscoped_url=unscoped_url, other_games=other_games)


def other_games(game_id: str, players: int, language: str) -> list[tuple[str, str]]:
    """The games an evening may go on with after ``game_id`` (id, title with its player count), for
    the end screen's "Another game with these players": those ``players`` can play first."""
    from companion.i18n import player_count
    out = []
    for gid in GAME_IDS:
        cls = game_class(gid)
        if gid != game_id:
            title = cls.title_ja if language == "ja" else cls.title
            fits = cls.min_players <= players <= cls.max_players
            out.append((not fits, gid, f"{title} ({player_count(cls.min_players, cls.max_players, language)})"))
    return [(gid, title) for _, gid, title in sorted(out, key=lambda row: row[0])]


def allowed() -> bool:
    """True for the owner (this computer, or the browser it paired: ``webui.core.owner``); a
    table's host cookie opens that table, not the history."""
    return is_owner()


def known_locations() -> list[str]:
    """The locations of the history for the create form's suggestions (the host's records: host only)."""
    return query.locations(tables().store) if allowed() else []


def known_players() -> list[str]:
    """The known players for the create form's picker: for the host only (the names are the
    host's records, like the tables list that only this machine sees)."""
    return query.known_players(tables().store) if allowed() else []


def _refuse() -> NoReturn:
    """403 in the reader's language (a page for browsers, JSON for machines)."""
    raise ApiError(403, both("The history is the host's: open it on the host's machine, or on the phone that "
                             "created a table."))


def _bad_dates(err: Exception) -> NoReturn:
    raise ApiError(400, str(err), ja=t("Give dates as year-month-day, e.g. 2026-11-24.", "ja"))


FILTER_ARGS = ("game", "player", "location", "from", "to")
"""The page's filter in its address (the export and "Show all plays" keep it)."""


SCOPE_ARGS = ("location", "from", "to")
"""The part of the filter the player, game and overview pages follow (where and when)."""


def scope_args() -> dict[str, str]:
    """The request's location and dates, as the History page's address gives them."""
    return {k: v for k, v in request.args.items() if k in SCOPE_ARGS and v.strip()}


def scoped_url(endpoint: str, **values: Any) -> str:
    """``url_for`` that keeps the page's location and dates (the History page's filter follows
    the links to a player's, a game's and the overview page, and back)."""
    return url_for(endpoint, **{**scope_args(), **values})


def unscoped_url() -> str:
    """This page's address without the location and dates (its "All dates and places" link)."""
    rest = {k: v for k, v in request.args.items() if k not in SCOPE_ARGS}
    return url_for(request.endpoint or "history.page", **(request.view_args or {}), **rest)


def _filter() -> query.Filter:
    game = request.args.get("game") or None
    player = (request.args.get("player") or "").strip() or None
    since, until = request.args.get("from"), request.args.get("to")
    location = (request.args.get("location") or "").strip() or None
    try:
        return query.Filter(game if game in GAME_IDS else None, player,
                            dates.day_bounds(since, end=False) if since else None,
                            dates.day_bounds(until, end=True) if until else None, location)
    except ValueError as err:
        raise exchange.HistoryError(str(err)) from None


def _scope() -> query.Filter:
    """The History page's location and dates only (a bad date is refused as there)."""
    try:
        which = _filter()
    except exchange.HistoryError as err:
        _bad_dates(err)
    return query.Filter(since=which.since, until=which.until, location=which.location)


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
    dist = query.distribution(mine, game)   # persons' seats only
    most = max((c for _, _, c in dist), default=1) or 1
    heading = (t("Scores of the persons' seats (not the companion's)", language)
               if any(s.companion for p in mine for s in p.seats) else t("Scores of all seats", language))
    return {"game": game, "title": title(game, language), "plays": len(mine), "stats": stats,
            "line": line_chart(lines, label=t("Scores, play by play", language), x_first=window + 1,
                               colours=[colour.get(name, PALETTE[-1]) for name, _ in lines]),
            "distribution": bar_rows([(f"{lo}" if lo == hi else f"{lo} … {hi}", c / most,
                                       counted(c, "seat", language))
                                      for lo, hi, c in dist], label=heading, colours=[]),
            "distribution_heading": heading}


COUNTED = {"win": Nn_("{n} win", "{n} wins"), "play": Nn_("{n} play", "{n} plays"),
           "seat": Nn_("{n} seat", "{n} seats")}


def counted(count: int, what: str, language: str) -> str:
    """``1 win``, ``3 wins`` / ``3勝`` (``what``: win, play or seat)."""
    one, many = COUNTED[what]
    return nt(one, many, count, language, n=count)


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
    filtered = which != query.Filter()
    everything = query.plays(store) if filtered else plays
    share = query.win_share(plays)
    # one colour per person on every chart of the page, whatever the filter: the seat's colour at the table
    colour = person_colours(everything)
    total_wins = sum(w for _, w, _ in share) or 1
    most_wins = max((w for _, w, _ in share), default=0) or 1   # the leader's bar runs the whole width
    chart = bar_rows([(name, w / most_wins, f"{counted(w, 'win', language)} · {round(100 * w / total_wins)}%")
                      for name, w, _ in share[:10]], label=t("Share of wins", language),
                     colours=[colour.get(name, PALETTE[-1]) for name, _, _ in share[:10]])
    games = [which.game] if which.game else query.games_played(plays)
    changes = edit.edits(store)
    return render_template(
        "history.html", lang=language, plays=plays, which=which,
        days=_by_day(plays if request.args.get("all") else plays[-RECENT:], language),
        hidden=0 if request.args.get("all") else max(0, len(plays) - RECENT),
        games=[{"id": g, "title": title(g, language)} for g in GAME_IDS],
        players=query.known_players(store), locations=query.locations(store), share_chart=chart, title=title,
        since=request.args.get("from") or "", until=request.args.get("to") or "", filtered=filtered,
        show_all=url_for("history.page", all=1, lang=language,
                         **{k: v for k, v in request.args.items() if k in FILTER_ARGS and v}),
        sections=[_game_section(plays, g, language, colour) for g in games],
        time_played=dates.duration(sum(p.duration for p in plays), language),
        people=len({s.person for p in plays for s in p.seats if s.person}),
        played_games=query.games_played(everything), counted=counted, seat_label=seat_label,
        play_options=play_options, csrf=csrf_token(), corrected={e.play for e in changes if not e.deleted},
        deleted=[e for e in changes if e.deleted], done=request.args.get("done"),
        done_play=request.args.get("play"), done_count=request.args.get("n", type=int))


@bp.get("/history/export")
def export() -> Response:
    """Download every play (or a date range) as CSV, JSON or a BG Stats file (host only)."""
    if not allowed():
        _refuse()
    fmt = request.args.get("format", "json")
    if fmt not in exchange.FORMATS:
        raise ApiError(400, both("format must be one of {formats}", formats=", ".join(exchange.FORMATS)))
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


def person_colours(plays: list[Any]) -> dict[str, str]:
    """Each person's chart colour: the colour of the seat they sat in most (the phone page's seat
    colours, ``--seat0`` …), the most-winning person first; a colour taken goes to the next seat
    colour free (``charts.seat_colours``)."""
    seats: dict[str, dict[int, int]] = {}
    for _, seat, person in query.people(plays):
        counts = seats.setdefault(person, {})
        counts[seat.seat] = counts.get(seat.seat, 0) + 1
    order = [name for name, _, _ in query.win_share(plays)]
    return seat_colours([(name, sorted(seats[name], key=lambda k: (-seats[name][k], k))) for name in order])


def rematch_of(table_id: str) -> dict[str, str] | None:
    """The table a rematch of ``table_id`` was set up at: {"id", "code"}, or None."""
    return tables().rematch_of(table_id)


def _host_of(table_id: str) -> Response:
    return redirect_with_token(url_for("host.table", table_id=table_id), f"tch_{table_id}",
                               tables().host_token(table_id))


@bp.post("/history/rematch")
def rematch() -> Any:
    """A new table with the same game, players, seats and options, the start player one seat on:
    from a finished table (``table``: its host only) or from a play of the history (``play``); with
    ``game`` (and ``names``), a finished table's players go on with another game (``_another_game``)."""
    origin = request.headers.get("Origin")
    if origin and urlsplit(origin).netloc != request.host:
        # a page of another site posting to this server (the host's machine is trusted as such)
        raise ApiError(403, both("Refused: a request from another site."))
    if TOKEN_HEADER not in request.headers and not csrf_ok(request.form.get("csrf")):
        # a form (cookie-borne rights) carries the server's token; an API call its header
        raise ApiError(403, both("This form is stale or was sent from another page: open the History page again."))
    table_id, play_id = request.form.get("table"), request.form.get("play")
    if table_id:
        require_role(table_id, "host", allow_cookie=True)
        s = get_session(table_id)
        if not s.is_over():
            raise ApiError(409, both("The game is still on: end it first."))
        already = rematch_of(table_id)
        if already:
            return _host_of(already["id"])
        game, names, options = s.game_id, list(s.names), dict(s.options)
        options["start_player"] = (s.game.options.get("start_player", 0) + 1) % s.players
        rounds, target = s.rounds, s.target
        companions, location = s.companions, s.location
        # a seat a person played that the host then gave to the companion (the person went home) is
        # the companion's now: named by the app, not after the person who left
        played = read_plays(tables().store._db(), "WHERE p.session = ?", (table_id,))
        people = {seat.seat for seat in played[-1].seats if not seat.companion} if played else set()
        names = ["" if i in companions and i in people else n for i, n in enumerate(names)]
        if request.form.get("game"):   # another game with these players (a late-comer added at the end)
            game, names, options, rounds, target = _another_game(s, request.form, names)
    elif play_id:
        if not allowed():
            _refuse()
        found = read_plays(tables().store._db(), "WHERE p.id = ?", (play_id,))
        if not found:
            raise ApiError(404, both("No play {play_id!r} in the history.", play_id=play_id))
        play = found[0]
        game, names, options = play.game, play.names, dict(play.options)
        options["start_player"] = (options.get("start_player", 0) + 1) % len(names)
        rounds = target = None
        companions = {seat.seat: seat.companion for seat in play.seats if seat.companion}
        location = play.location
    else:
        raise ApiError(400, both("Say which table or play to rematch."))
    wait = limit("create").wait(client())   # a rematch is a new table like any other
    if wait:
        too_many(wait, both("Too many new tables from this address"))
    # the companion keeps its seats and the table its place: neither becomes a person or is lost; a
    # seat the app named for the companion is named again for the level it plays now (or "P2" when
    # the host gave it back to a person)
    names = [n or f"P{i + 1}" for i, n in enumerate(companion_names(names, companions, lang()))]
    new = tables().create(game, len(names), names=names, options=options, rounds=rounds, target=target,
                          companions=companions, location=location)
    table_created(new.id)
    if table_id:   # every phone follows in the seat it held, with the token it has (no new code)
        tables().store.copy_phones(table_id, new.id)
    follow_rematch(current_app, table_id or found[0].session, new.id)   # the table's camera watches on
    if table_id:
        with tables().lock(table_id):
            s.note({"rematch": {"id": new.id, "code": new.code, "game": game}}, by="host")
        tables().changed(table_id)
    return _host_of(new.id)


def _another_game(s: Any, form: Any, names: list[str]) -> tuple[str, list[str], dict[str, Any], None, None]:
    """The next game of an evening, from the rematch form: its id, the names (those of ``s``'s seats
    first, so each phone keeps its seat; new names at the end are seats for late-comers) and the
    game's default options (no series)."""
    game = form.get("game", "")
    if game not in GAME_IDS:
        raise ApiError(400, both("No game {game!r}: choose one of the list.", game=game))
    typed = [n.strip() for n in (form.get("names") or "").split(",") if n.strip()]
    shown = [str(n) for n in s.names_in(lang())]   # as the form showed them
    if typed and typed[:len(shown)] != shown:
        # a name left out or moved would put a phone in another person's seat
        raise ApiError(400, both("Keep everyone's name, in the same order (the phones keep their seats); add a "
                                 "late-comer's name at the end."))
    names = names + typed[len(shown):]
    cls = game_class(game)
    if not cls.min_players <= len(names) <= cls.max_players:
        raise ApiError(400, both("{title} is for {count}, got {players}.", title=Text(cls.title, cls.title_ja),
                                 count=Text(*cls.player_count()), players=len(names)))
    return game, names, {}, None, None


def play_options(play: Any, language: str) -> str:
    """The options a play changed from the game's defaults, in words (``Jokers · Banners``)."""
    said = []
    for opt in game_class(play.game).options_spec:
        value = play.options.get(opt.name, opt.default)
        if opt.name == "start_player" or value == opt.default:
            continue
        name, _ = option_words(play.game, opt.name, language)
        if value is True:
            said.append(name)
        else:
            off = t("off", language) if value is False else choice_words(play.game, opt.name, value, language)
            said.append(f"{name}: {off}")
    return " · ".join(said)


def seat_label(seat: Any, language: str) -> str:
    """A seat as the page names it: the person's name, or "Seat 2" / 「席2」 for a seat nobody named;
    a companion seat says so and its level ("Companion (good)", or "Robo (companion, good)")."""
    if seat.companion:   # a name the app gave: in this page's language, at the level it played
        return companion_name(seat.companion, language) if anonymous(seat) else \
            companion_label(seat.name, seat.companion, language)
    if not anonymous(seat):
        return str(seat.name)
    return t("Seat {n}", language, n=seat.seat + 1)


# ----------------------------------------------------------------------------- player, game, overview pages
MONTHS = (N_("Jan"), N_("Feb"), N_("Mar"), N_("Apr"), N_("May"), N_("Jun"), N_("Jul"), N_("Aug"), N_("Sep"),
          N_("Oct"), N_("Nov"), N_("Dec"))
"""The months as a chart's column labels (English as companion.dates writes them)."""
MONTH_COLUMNS = 24
"""The plays-per-month chart shows at most the last this many months (a phone-wide chart)."""


def _host_only() -> str:
    """The page language, after refusing anyone but the host."""
    if not allowed():
        _refuse()
    return lang()


def month_chart(per_month: Any, language: str) -> Any:
    """The plays-per-month chart of the last ``MONTH_COLUMNS`` months (labels in the page language)."""
    columns = []
    for month, count in list(per_month)[-MONTH_COLUMNS:]:
        year, m = int(month[:4]), int(month[5:])
        columns.append((t(MONTHS[m - 1], language), t("{year}", language, year=year), count))
    return column_chart(columns, label=t("Plays per month", language))


@bp.get("/history/player")
def player() -> Any:
    """One player's page: plays, wins, win % per game, average and best, streaks, head-to-head, scores."""
    language = _host_only()
    name = (request.args.get("name") or "").strip()
    store = tables().store
    everything = query.plays(store, _scope())
    summary = query.player_summary(everything, name) if name else None
    if summary is None:
        raise ApiError(404, both("No plays of {name!r}.", name=name))
    # as on the History page: the colours of every play, whatever the filter
    mine_colour = person_colours(query.plays(store)).get(summary.name, PALETTE[1])
    charts = []   # one small chart a game: scores of different games do not share a scale
    for game in sorted(summary.scores, key=lambda g: -len(summary.scores[g])):
        window = max(0, len(summary.scores[game]) - CHART_PLAYS)
        mine = summary.scores[game][window:]
        first = mine[0][0]
        lines = [(t("Score", language), mine), (t("Others' avg", language),   # the page names the player
                                        [(x, y) for x, y in summary.others.get(game, []) if x >= first])]
        charts.append((game, line_chart(lines, label=t("Scores over time", language) + f": {title(game, language)}",
                                        x_first=first, height=130, colours=[mine_colour, "#8d8d8d"])))
    key = summary.name.casefold()
    recent = [p for p in everything if any(s.person and s.person.casefold() == key for s in p.seats)][-10:]
    return render_template("history_player.html", lang=language, p=summary, charts=charts, title=title,
                           recent=list(reversed(recent)), counted=counted, seat_label=seat_label,
                           level_words=level_words, scope=scope_args())


def _overview_page(game: str | None) -> Any:
    language = _host_only()
    store = tables().store
    plays = query.plays(store, replace(_scope(), game=game))
    o = query.overview(plays)
    most = max((n for _, n in o.per_game), default=1)
    per_game = bar_rows([(title(g, language), n / most, counted(n, "play", language)) for g, n in o.per_game],
                        label=t("Plays per game", language),
                        colours=[PALETTE[GAME_IDS.index(g) % len(PALETTE)] for g, _ in o.per_game])
    colour = person_colours(query.plays(store, query.Filter(game=game)))   # whatever the filter
    section = _game_section(plays, game, language, colour) if game and plays else None
    return render_template("history_overview.html", lang=language, o=o, game=game, title=title,
                           months=month_chart(o.per_month, language), per_game=per_game, section=section,
                           counted=counted, played_games=query.games_stored(store), scope=scope_args())


@bp.get("/history/overview")
def overview() -> Any:
    """Every game: plays per month, time played, most played, h-indexes, records, first and last play."""
    return _overview_page(None)


@bp.get("/history/game/<game>")
def game_page(game: str) -> Any:
    """One game: the overview's figures for it, its players' statistics and charts."""
    if game not in GAME_IDS:
        raise ApiError(404, both("No game {game!r}.", game=game))
    return _overview_page(game)


# ----------------------------------------------------------------------------- corrections
def _checked_form() -> Any:
    """The posted form, after the host and CSRF checks (the host form's token, held in a cookie)."""
    if not allowed():
        _refuse()
    if not csrf_ok(request.form.get("csrf")):
        en, ja = both("This form is stale or was sent from another page: open the History page again.")
        raise ApiError(403, en, ja=ja)
    return request.form


def _play_or_404(play_id: str) -> Any:
    found = read_plays(tables().store._db(), "WHERE p.id = ?", (play_id,))
    if not found:
        raise ApiError(404, both("No play {play_id!r} in the history.", play_id=play_id))
    return found[0]


def _back(done: str, play_id: str = "", **extra: Any) -> Response:
    from flask import redirect
    return redirect(url_for("history.page", done=done, play=play_id or None, lang=lang(), **extra)
                    + (f"#play-{play_id}" if play_id and done != "deleted" else ""), code=303)


def _edit_page(play: Any, error: str | None = None) -> Any:
    store = tables().store   # a seat renamed is offered the known players, a location the known places
    return render_template("history_edit.html", lang=lang(), play=play, title=title, csrf=csrf_token(),
                           error=error, players=query.known_players(store), locations=query.locations(store))


@bp.get("/history/play/<path:play_id>")
def edit_form(play_id: str) -> Any:
    """The form that corrects a play's names, scores, winners and duration, or deletes it."""
    _host_only()
    return _edit_page(_play_or_404(play_id))


@bp.post("/history/play/<path:play_id>")
def edit_save(play_id: str) -> Any:
    """Save the host's correction of a play (names, scores, winners, duration)."""
    form = _checked_form()
    play = _play_or_404(play_id)
    try:
        seats = [edit.SeatFix(form.get(f"name{i}", ""), int(form.get(f"score{i}", "")),
                              form.get(f"winner{i}") == "1") for i in range(len(play.seats))]
        minutes = form.get("minutes", "").strip()
        duration = int(minutes) if minutes else None
        if play.knows("duration") and duration == round(play.duration / 60):
            duration = None   # the field as the form showed it: keep the seconds (a 30 s play stays 30 s)
        edit.correct(tables().store, play_id, seats, duration, form.get("location"))
    except exchange.HistoryError as err:   # a GameError is a ValueError: this one first
        return _edit_page(play, err.ja if lang() == "ja" and err.ja else str(err)), 400
    except ValueError:
        return _edit_page(play, t("A score and a duration are whole numbers.", lang())), 400
    return _back("corrected", play_id)


@bp.get("/history/play/<path:play_id>/bgstats")
def to_bgstats(play_id: str) -> Response:
    """"Log this play in BG Stats": BG Stats' one-play link for the play as it stands in the history
    (the host's corrections included), which opens the app's import dialog on the host's phone."""
    from flask import redirect
    _host_only()
    return redirect(bgstats.play_link(_play_or_404(play_id)), code=303)


@bp.get("/history/table/<table_id>/bgstats")
def table_to_bgstats(table_id: str) -> Response:
    """The same for the last finished game of a table, from its end screen: for the owner, or the
    table's host (who may have created it from a phone, where BG Stats is)."""
    from flask import redirect
    if not allowed() and tables().role(table_id, request.cookies.get(f"tch_{table_id}")) != "host":
        _refuse()
    found = read_plays(tables().store._db(), "WHERE p.session = ?", (table_id,))
    if not found:
        raise ApiError(404, both("No finished game of this table in the history."))
    return redirect(bgstats.play_link(max(found, key=lambda p: p.number)), code=303)


@bp.post("/history/play/<path:play_id>/delete")
def delete(play_id: str) -> Any:
    """Delete a play from the history (a test game); the page offers Undo."""
    _checked_form()
    try:
        edit.delete(tables().store, play_id)
    except exchange.HistoryError as err:
        raise ApiError(404, str(err), ja=err.ja) from None
    return _back("deleted", play_id)


@bp.post("/history/play/<path:play_id>/undo")
def undo(play_id: str) -> Any:
    """Take back a correction or deletion: the play is as recorded again."""
    _checked_form()
    try:
        edit.undo(tables().store, play_id)
    except exchange.HistoryError as err:
        raise ApiError(409, str(err), ja=err.ja) from None
    return _back("restored", play_id)


# ----------------------------------------------------------------------------- import from BG Stats
IMPORT_LIMIT = 16 * 1024 * 1024
"""A BG Stats export of years of plays is a few megabytes; the rest of the app keeps its small limit."""
PENDING = 3
"""Uploaded files kept between the preview and the confirmation (the newest)."""


def _pending() -> dict[str, str]:
    from flask import current_app
    return current_app.extensions.setdefault("history_imports", {})


def _keep(text: str) -> str:
    """Keep an uploaded file until the host confirms it; the token its confirmation sends."""
    import secrets
    token = secrets.token_urlsafe(12)
    pending = _pending()
    pending[token] = text
    for old in list(pending)[:-PENDING]:
        pending.pop(old, None)
    return token


PICK_ALL = 12
"""Up to this many known players (a family's), each new player's picker lists them all; past it, the
picker has the closest few and anyone else is typed (one list for the page: 1,500 pickers of 1,713
players each were 2.6 million options)."""


@bp.post("/history/import")
def import_file() -> Any:
    """Read an uploaded BG Stats export and show what it would import (``file``), or import it as the
    host confirmed, with the players merged as chosen (``token``, ``merge<ref>``)."""
    request.max_content_length = IMPORT_LIMIT
    form = _checked_form()
    language = lang()
    store = tables().store
    token = form.get("token")
    upload = request.files.get("file")
    if token:
        text = _pending().get(token)
        if text is None:
            en, ja = both("This form is stale or was sent from another page: open the History page again.")
            raise ApiError(409, en, ja=ja)
    elif upload is not None:
        try:
            text = upload.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ApiError(400, both("The file is not UTF-8 text (BG Stats exports JSON).")) from None
    else:
        raise ApiError(400, both("Choose a BG Stats export file."))
    try:
        data = exchange.load_json(text)
        if isinstance(data, dict) and data.get("format") == exchange.FORMAT:   # this app's own backup
            done = exchange.import_text(store, text, dry_run=not token)
            if token:
                _pending().pop(token, None)
                return _back("restored_backup", n=done.plays)
            return render_template("history_import.html", lang=language, reading=None, plays=done.plays,
                                   players=len(data.get("players") or []), token=_keep(text),
                                   csrf=csrf_token(), title=title, backup=True)
        if not bgstats.is_file(data):
            raise exchange.HistoryError(*both("not a BG Stats export (\"games\", \"players\", \"plays\") nor "
                                              "this app's backup"))
        known = query.known_players(store)
        merge = {}
        if token:
            people = {p.ref: p for p in bgstats.read_file(data, known).people}
            spelled = {k.casefold(): k for k in known}
            for key, value in form.items():
                # a suggestion picked (merge<ref>), or another known player typed (other<ref>: it wins)
                ref = key[5:] if key.startswith(("merge", "other")) else ""
                if not (ref.isdigit() and int(ref) in people and value.strip()):
                    continue
                if key.startswith("merge") and form.get(f"other{ref}", "").strip():
                    continue
                merge[people[int(ref)].name] = spelled.get(value.strip().casefold(), value.strip())
        done = exchange.import_bgstats(store, data, merge=merge, dry_run=not token)
    except exchange.HistoryError as err:
        raise ApiError(400, both("This file cannot be imported: {why}", why=Text(str(err), err.ja or str(err)))) from None
    except ValueError as err:   # not JSON
        raise ApiError(400, both("This file cannot be imported: it is not JSON ({err})", err=err)) from None
    if token:
        _pending().pop(token, None)
        return _back("imported", n=done.plays)
    known = query.known_players(store)
    return render_template("history_import.html", lang=language, reading=done.reading, plays=done.plays,
                           already=dict(done.reading.left_out).get("already_imported", 0), token=_keep(text),
                           known=known, pick_all=len(known) <= PICK_ALL, csrf=csrf_token(), title=title,
                           unknown_words=UNKNOWN_WORDS, left_out_words=bgstats.LEFT_OUT, counted=counted)
