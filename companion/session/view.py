"""Who sees what at a table: every state, page, move log, event list, export and odds a viewer gets
is built here, by ``view_for``/``export_for``/``may_see_odds`` (like boardgame.io's ``playerView``),
so no route can forget to hide a hand.

A viewer is one of:

* ``Viewer.of_seat(n)``: the phone that holds seat *n*. It sees the public table, its own hand and
  its own face-down cards, and only its own moves; it enters the card it turned over itself
  (``chance_seat``: a Chains flip, a 2-player Prussia draw, every card of a solo game), chosen
  from every card whose place it does not know (never from the pile alone: that would tell the
  other hand by elimination).
* ``TABLE``: the scorekeeper phone the host granted (one shared phone for everyone). It moves for
  whoever is to move, so it sees the mover's buttons (in a hidden-hand game: the mover's hand) and
  the chance outcomes; otherwise only the public table.
* ``HOST``: the host's page. Public table and chance outcomes; the mover's buttons only when they
  name no hidden card. The host is usually a player too, so the page shows no hand. Only the host's
  export (``export_for``) is unredacted: the host keeps the record and rules on disputes.
* ``WATCH``: a joined phone without a seat: the public table only.

Hidden cards are named per game in ``hidden_cards``; anywhere else a hidden card id would appear (a
move in the log, an event, a prompt's choice) it is replaced by the back of that card.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection

from companion import catalogue
from companion.engine import CHANCE, TERMINAL, Game, Move, Reason, in_both
from companion.session import autoplay

ROLES = ("seat", "table", "host", "watch")


@dataclass(frozen=True)
class Viewer:
    """Who is looking: a role and, for a seat's phone, the seat."""

    role: str
    seat: int | None = None

    @classmethod
    def of_seat(cls, seat: int) -> "Viewer":
        """The phone that holds ``seat``."""
        return cls("seat", seat)

    @property
    def moves_for_everyone(self) -> bool:
        """True for viewers who may enter any seat's move and the chance moves (host, scorekeeper)."""
        return self.role in ("host", "table")


HOST = Viewer("host")
TABLE = Viewer("table")
WATCH = Viewer("watch")


def hidden_cards(game: Game, viewer: Viewer) -> set[str]:
    """The card ids ``viewer`` may not learn now (in a hand not theirs, or face down)."""
    own = viewer.seat if viewer.role == "seat" else None
    others = [s for s in range(game.players) if s != own]
    gid = game.id
    if gid == "hills":
        if game.options.get("open_play"):
            return set()
        # the other colour's cards nobody has seen face up: its hand and its face-down cards
        return {c for s in others for c in game.public_unseen(s)}
    if gid == "spartacus":
        if game.is_over():   # the hands are shown and scored at the end: the final scoring names them
            return set()
        hidden = {c for s in others for c in game.hands[s]}
        if not game.is_over():   # won tricks lie face down until the end
            hidden |= {c for piles in game.piles for p in piles for c in p["cards"]}
        return hidden
    if gid == "prussia" and game.players == 2:
        return {c for s in others for c in game.hands[s]}
    return set()   # Wheel of History and Chains: everything on the table is public


def possible_cards(game: Game, seat: int) -> set[str] | None:
    """The cards ``seat`` could hold or have laid face down, as everyone at the table can tell from
    what is public (what the host's override picker may offer for that seat); None where nothing
    is hidden (Wheel, Chains, solo Prussia: the picker's own card list stands)."""
    gid = game.id
    if gid == "hills":
        # its own colour's cards nobody has seen face up (under open play: its hand)
        return set(game.hand(seat) or []) if game.options.get("open_play") else set(game.public_unseen(seat))
    if gid == "spartacus":
        # each seat plays its own colour: its hand, or a won trick lying face down (the table's
        # screens do not show those either)
        mine = f"S-{game.colour(seat)}"
        return {c for c in hidden_cards(game, HOST) if c.startswith(mine)} | set(game.hands[seat])
    if gid == "prussia" and game.players == 2:
        # any card whose place nobody at the table knows: either hand or the pile
        return {c for hand in game.hands for c in hand} | set(game.table.pile)
    return None


def _back(card_id: str) -> str:
    try:
        return catalogue.back_of(catalogue.card(card_id))
    except (KeyError, ValueError):
        return "?"


def redact(value: Any, hidden: set[str]) -> Any:
    """``value`` (JSON data) with every hidden card id replaced by its back."""
    if not hidden:
        return value
    if isinstance(value, str):
        return _back(value) if value in hidden else value
    if isinstance(value, list):
        return [redact(v, hidden) for v in value]
    if isinstance(value, tuple):
        return tuple(redact(v, hidden) for v in value)
    if isinstance(value, dict):
        return {k: redact(v, hidden) for k, v in value.items()}
    return value


def names_hidden(value: Any, hidden: set[str]) -> bool:
    """True if JSON ``value`` names a hidden card anywhere."""
    if not hidden:
        return False
    if isinstance(value, str):
        return value in hidden
    if isinstance(value, (list, tuple)):
        return any(names_hidden(v, hidden) for v in value)
    if isinstance(value, dict):
        return any(names_hidden(v, hidden) for v in value.values())
    return False


HIDDEN_EVENT = ("A card that is face down now or in a hand (not shown here).",
                "今は裏向きか手札にあるカード(ここには表示しません)。")


def _event(e: dict[str, Any], hidden: set[str], game: Game, names: list[str], viewer: Viewer,
           names_ja: list[str] | None = None) -> dict[str, Any]:
    if not names_hidden(e.get("data"), hidden):
        return e
    data = e.get("data") or {}
    if e.get("kind") == "undo" and isinstance(data.get("moves"), list):
        # a move taken back is worth saying, only without the card the viewer may not see
        en, ja = moves_words(game, names, [Move.from_json(m) for m in data["moves"]], viewer, names_ja=names_ja)
        asked = data.get("asked_by")
        text, text_ja = ((f"{asked}'s move was taken back: {en}.", f"{asked}の手を取り消しました: {ja}。")
                         if asked else (f"Taken back: {en}.", f"取り消し: {ja}。"))
        return {"kind": "undo", "text": text, "ja": text_ja, "data": redact(data, hidden), "version": e.get("version")}
    if e.get("kind") in ("corrected", "house_ruling"):
        # a correction or a ruling stays visible as such, worded without the card the viewer may not see
        words = {k: moves_words(game, names, [Move.from_json(m) for m in data[k]], viewer, names_ja=names_ja)
                 for k in ("was", "now", "moves") if isinstance(data.get(k), list)}
        if e["kind"] == "corrected":
            from companion.session.table import corrected_said
            # "confirmed": asked of the seat's phone, which alone saw the card
            text = corrected_said(str(data.get("by") or "host"), words["was"], words["now"], str(data.get("confirmed") or ""))
        else:
            reason = str(data.get("reason") or "")
            text = (f"House ruling ({reason}): {words['moves'][0]}.", f"ハウスルール({reason}): {words['moves'][1]}。")
        return {"kind": e["kind"], "text": text[0], "ja": text[1], "data": redact(data, hidden),
                "version": e.get("version")}
    if game.id == "spartacus" and e.get("kind") in ("play", "trick"):
        # a card now face down in a won trick: who played, who took the trick (its worth is public)
        if e["kind"] == "play":   # worded as the engine's own event, in the past in Japanese
            who = game.seat_label(int(data["player"]), names)
            text = (f"{who} plays a card.", f"{who.ja}がカードを出した。")
        else:
            who = game.seat_label(int(data["winner"]), names)
            text = (f"Trick won by {who} (worth {data['so_far']} so far).",
                    f"{who.ja}がトリックを獲得(ここまで{data['so_far']}点)。")
        return {"kind": e["kind"], "text": text[0], "ja": text[1], "data": redact(data, hidden),
                "version": e.get("version")}
    # the words name the card too: say only that something happened
    return {"kind": e.get("kind"), "text": HIDDEN_EVENT[0], "ja": HIDDEN_EVENT[1],
            "data": redact(e.get("data"), hidden), "version": e.get("version")}


def _prompt(p: dict[str, Any], hidden: set[str], viewer: Viewer) -> dict[str, Any]:
    if p.get("kind") == "confirm":
        return _confirm_prompt(p, viewer)
    if viewer.moves_for_everyone or not names_hidden(p.get("choices"), hidden):
        return p
    choices = [dict(c, label="(hidden: the host or scorekeeper answers)", ja="(非公開: ホストか記録係が答えます)",
                    move=None, moves=[]) for c in p.get("choices", [])]
    return dict(p, choices=choices, hidden=True)


def _confirm_prompt(p: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    """The host's correction asked of one seat: that seat's phone sees its own card and answers
    yes or no; the host may only withdraw the question; everyone else reads that the table waits."""
    if viewer.role == "seat" and viewer.seat == p.get("seat"):
        yes = next((c for c in p.get("choices", []) if c.get("moves")), None) or {}
        card, was = (yes.get("moves") or [{}])[0].get("card"), yes.get("was")
        return dict(p, text=yes.get("said", p.get("text")), ja=yes.get("said_ja", p.get("ja")), mine=True,
                    card=card if isinstance(card, str) else None, was=was if isinstance(was, str) else None)
    choices = [dict(c, label="Withdraw the question", ja="質問を取り下げる", move=None, moves=[])
               for c in p.get("choices", []) if not c.get("moves") and viewer.role == "host"]
    return dict(p, choices=choices, waiting=True)


def public_view(game: Game, turn: int) -> dict[str, Any]:
    """What everyone at the table sees: the layout, scores, whose turn, and the game's public facts."""
    view: dict[str, Any] = {"layout": game.layout(), "scores": game.scores(), "current_player": turn}
    gid = game.id
    if gid in ("wheel", "chains"):   # every fact of these games is public
        view.update(game.player_view(max(game.current_player(), 0)), current_player=turn)
    elif gid == "hills":
        full = game.player_view(0)
        view.update({k: full[k] for k in ("hand_count", "start_player", "leading", "result") if k in full})
        view["forbidden"] = ({str(h): why for h, why in game.forbidden_hills(turn).items()}
                             if turn >= 0 else {})
    elif gid == "spartacus":
        full = game.player_view(0)
        view.update({k: full[k] for k in ("trick", "passed", "leader", "won", "won_worth", "hand_sizes",
                                          "out", "over", "breakdown", "winners") if k in full})
    elif gid == "prussia":
        table = game.table
        view.update(kings=table.kings, phase=game.phase, drawn=game.drawn, solo=game.players == 1,
                    result=table.result)
    return view


def _seat_view(game: Game, seat: int, turn: int) -> dict[str, Any]:
    view = dict(public_view(game, turn))
    own = game.player_view(seat)
    if game.id == "hills" and isinstance(own.get("unseen"), dict):
        # the other colour's unseen cards are a set anyone can count, but listed beside this
        # seat's view they would read as "the opponent holds these": keep only our own
        side = own.get("colour")
        own = dict(own, unseen={side: own["unseen"].get(side, [])})
    own.pop("legal_moves", None)   # the seat's moves come from the state's legal_moves
    view.update(own, current_player=turn)
    return view


def _moves_shown(game: Game, viewer: Viewer, legal: list[Move], hidden: set[str]) -> list[Move]:
    if viewer.role == "seat":
        return [m for m in legal if m.player == viewer.seat]
    if viewer.role == "table":
        return legal
    if viewer.role == "host":   # the host plays too: no buttons that would show a hand
        return [] if any(names_hidden(m.to_json(), hidden) for m in legal) else legal
    return []


def chance_seat(game: Game) -> int | None:
    """The seat whose phone enters the card the table turns over now: the one who turned it over
    (a Chains flip, a 2-player Prussia draw), the only seat of a solo game; None when it is no
    seat's card (the opening circle, terminals or deal: the host lays them). The host and the
    scorekeeper may always enter it."""
    if game.is_over() or not game.is_chance_node():
        return None
    if game.players == 1:
        return 0
    if game.id == "chains":
        pending = getattr(game, "pending", None)
        return pending[0] if pending else None
    if game.id == "prussia" and getattr(game, "phase", None) == "draw":
        return int(game.seat)   # the seat that chose to draw from the pile
    return None


def laid_by_any_seat(game: Game, move: Move) -> bool:
    """Whether any seat's phone may enter ``move``: a deal each player lays their own part of in
    the open (Chains' terminal rows; which copy of each value does not matter, and a camera reads
    the copies laid, ``companion.session.reconcile.Adapter.copies``)."""
    return game.id == "chains" and move.player == CHANCE and move.kind == "setup"


def enters_chance(game: Game, viewer: Viewer, companions: Collection[int] = ()) -> bool:
    """Whether ``viewer`` enters the card the table turns over now: the host and the scorekeeper
    always, a seat's phone its own card, and any seat's phone a companion seat's card (the companion
    has no phone: someone at the table turns its card over for it, as they lay its cards)."""
    if viewer.moves_for_everyone:
        return True
    turner = chance_seat(game)
    return viewer.role == "seat" and turner is not None and (turner == viewer.seat or turner in companions)


def _chance_offered(session: Any, game: Game, viewer: Viewer, hidden: set[str]) -> list[Move]:
    """The chance outcomes ``viewer`` may pick from. A draw lists every card whose place the
    viewer does not know (the pile and the hidden hands alike): the pile alone would tell the
    hands by elimination. The table turns over a pile card, so the extra ones are never needed."""
    moves = session.chance_moves()
    draws = [m for m in moves if m.kind == "draw" and m.player == CHANCE]
    if hidden and draws and len(draws) == len(moves):
        cards = sorted({m.get("card") for m in draws} | hidden)
        moves = [Move.of(CHANCE, "draw", card=c) for c in cards]
    return moves[:60]


def _series_events(events: list[dict[str, Any]], games: list[Game], names: list[str],
                   viewer: Viewer, names_ja: list[str] | None = None) -> list[dict[str, Any]]:
    """The recent events, each worded and redacted as the game it belongs to: an event of an
    earlier game of the series hides what was hidden at that game's end (a 2-player Prussia
    game's deal named the other hand's never-played cards once the next game began). The events
    after the last "next game" are the table game's, those before it the game before, …"""
    shown, index = [], len(games) - 1
    for e in reversed(events):
        game = games[max(index, 0)]
        shown.append(_event(e, hidden_cards(game, viewer), game, names, viewer, names_ja))
        if e.get("kind") == "next_game":
            index -= 1
    return shown[::-1]


def _earlier_games(session: Any) -> list[Game]:
    """The engine of every game of the session, the table's game last."""
    return [game for game, _, _ in session._games()]


def view_for(session: Any, viewer: Viewer, lang: str = "en") -> dict[str, Any]:
    """The session's state as ``viewer`` may see it (the JSON the web page and API get), the seats
    named in ``lang`` (a seat the app named for the companion is "Companion (good)" or 「コンパニオン(中級)」)."""
    with session.lock:
        st = session.state(None)
        st["names"] = session.names_in(lang)
        game = session.game
        games = _earlier_games(session)
        turn = st["current_player"]
        hidden = hidden_cards(game, viewer)
        legal = [] if st["is_over"] else session.legal_moves()
        chance = _chance_offered(session, game, viewer, hidden) if enters_chance(game, viewer, session.companions) else []
        view = _seat_view(game, viewer.seat, turn) if viewer.role == "seat" else public_view(game, turn)
    st.update(
        viewer={"role": viewer.role, "seat": viewer.seat},
        view=view,
        legal_moves=[m.to_json() for m in _moves_shown(game, viewer, legal, hidden)],
        chance_moves=[m.to_json() for m in chance],
        moves=redact(st["moves"], hidden),
        events=_series_events(st["events"], games, session.names, viewer, session.names_in("ja")),
        prompts=[_prompt(p, hidden, viewer) for p in st["prompts"]],
        companions={str(k): v for k, v in session.companions.items()},
        events_total=len(session.history()),
        turner=chance_seat(game) if not st["is_over"] else None,
    )
    # the companion's move is said to everyone: someone at the table lays its card for it
    st["companion"] = autoplay.proposal(session) if session.companions else None
    return st


def replay_for(session: Any, viewer: Viewer, step: int) -> dict[str, Any]:
    """The table's current game as it stood after its first ``step`` moves (a replay, move by move),
    as ``viewer`` may see it: the public table then, the move that led there in words, its log
    version (a camera picture is kept per version) and the number of moves in all."""
    from companion.session.table import _apply_unchecked
    with session.lock:
        played = session.state(None)["moves"]
        moves = [(Move.from_json({k: v for k, v in m.items() if k not in ("version", "override")}), m["override"])
                 for m in played]
        versions = [m["version"] for m in played]   # the log entry of each move (its camera picture)
        game = type(session.game)(session.players, dict(session.game.options))
        names, names_ja = list(session.names), session.names_in("ja")
    step = max(0, min(step, len(moves)))
    said = ("", "")
    for i, (move, override) in enumerate(moves[:step]):
        before = game.clone() if i == step - 1 else None
        if override:
            _apply_unchecked(game, move)
        else:
            game.apply(move)
        if before is not None:   # a card played is public once on the table: hidden as it is after the move
            said = moves_words(before, names, [move], viewer, hidden_cards(game, viewer), names_ja)
    turn = game.current_player()
    view = redact(public_view(game, turn), hidden_cards(game, viewer))
    return {"step": step, "moves": len(moves), "view": view, "layout": view["layout"],
            "current_player": turn, "move": said[0], "move_ja": said[1],
            "version": versions[step - 1] if step else None, "after": versions[step - 2] if step > 1 else 0}


def events_for(session: Any, viewer: Viewer) -> list[dict[str, Any]]:
    """Every event of the session from its start (all games of a series) as ``viewer`` may read
    them: the whole log a page's "show all" opens."""
    with session.lock:
        events = session.history()
        hidden = hidden_cards(session.game, viewer)
        return [_event(e, hidden, session.game, session.names, viewer, session.names_in("ja")) for e in events]


def moves_words(game: Game, names: list[str], moves: list[Move], viewer: Viewer,
                hidden: set[str] | None = None, names_ja: list[str] | None = None) -> tuple[str, str]:
    """``moves`` in words (English, Japanese) as ``viewer`` may read them: a move naming a card
    the viewer may not see (``hidden``, default: now) is worded without its card. ``names_ja``:
    the seats' names in the Japanese (default ``names``)."""
    hidden = hidden_cards(game, viewer) if hidden is None else hidden
    names_ja = names if names_ja is None else names_ja
    parts_en, parts_ja = [], []
    for move in moves:
        shown = move
        if names_hidden(move.to_json(), hidden):
            shown = move.without("card")
        try:
            said = in_both(lambda seats: game.describe_move(shown, seats), names, names_ja)
            en, ja = str(said), getattr(said, "ja", "") or str(said)
        except Exception:   # a move some engines cannot word without its card
            who = names[move.player] if 0 <= move.player < len(names) else "?"
            who_ja = names_ja[move.player] if 0 <= move.player < len(names_ja) else "?"
            en, ja = f"{who}'s move (its card is not shown)", f"{who_ja}の手(カードは表示しません)"
        parts_en.append(en)
        parts_ja.append(ja)
    return ", ".join(parts_en), "、".join(parts_ja)


def may_move(game: Game, viewer: Viewer, move: Move, companions: Collection[int] = ()) -> str | None:
    """Why ``viewer`` may not enter ``move`` (None if it may): a seat moves only for itself (and enters
    a card turned over for a companion seat, ``enters_chance``)."""
    if viewer.moves_for_everyone:
        return None
    if viewer.role != "seat":
        return "watch"
    if move.player == CHANCE:
        return None if enters_chance(game, viewer, companions) or laid_by_any_seat(game, move) else "chance"
    return None if move.player == viewer.seat else "other"


def export_for(session: Any, viewer: Viewer) -> dict[str, Any]:
    """The session's export as ``viewer`` may see it: the host gets every card; anyone else gets
    every game of the series as its redacted view, also once it is over (a hand never played stays
    as hidden as on the phone's own view, ``hidden_cards``, in the next games too)."""
    with session.lock:
        data = session.export()
        if viewer.role == "host":
            return data
        engines = _earlier_games(session)
        current = view_for(session, viewer)
    games = list(data["games"])
    for i, (record, game) in enumerate(zip(games, engines)):
        # every game of a series as the viewer saw it at its end: a hand never played stays hidden
        hidden = hidden_cards(game, viewer)
        state = current["view"] if i == len(games) - 1 else (
            _seat_view(game, viewer.seat, TERMINAL) if viewer.role == "seat" else public_view(game, TERMINAL))
        games[i] = dict(record, moves=redact(record["moves"], hidden), state=redact(state, hidden), redacted=True)
    return dict(data, games=games)


def may_see_odds(session: Any, viewer: Viewer) -> Reason | None:
    """Why ``viewer`` may not ask for odds now (None if it may), in English and Japanese (``.ja``):
    odds are computed from the whole state, so they are offered only where nothing is hidden from
    the asker (solo Prussia)."""
    if session.game_id != "prussia":
        return Reason(f"Odds are offered for the Prussia game only; this table plays {session.game_id}.",
                      f"確率は輪る七年戦争だけで計算できます。この卓は{session.game.title_ja}です。")
    if session.players != 1:
        return Reason("Odds are offered for the solo game only: with two players they would be computed "
                      "from both hands.", "確率は1人用だけで計算できます。2人用では両方の手札から計算することになるためです。")
    if viewer.role == "watch":
        return Reason("Claim the seat first: odds are for the player.", "先に席を選んでください。確率はプレイヤー用です。")
    return None
