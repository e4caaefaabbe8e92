"""The table session: one physical table bound to one game engine, its history safe in SQLite.

Moves come from the camera (``observe``: a stable layout is reconciled into legal moves, see
``companion.session.reconcile``) and from phones (``play``). Everything that changes the session is an entry in
an append-only log (``store``): moves, prompts, answers, undos, overrides, the next game of a
series, the host ending a game early. The state is never stored, only rebuilt by replaying the log, so a process killed at any
moment comes back exactly as it was. Each entry carries the next version number; a writer who saw an
older version gets ``StaleVersion`` and nothing changes. docs/session.md tells the story.
"""
from __future__ import annotations

import copy
import functools
import re
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Mapping, Sequence

from companion import catalogue as cat
from companion.engine import TERMINAL, Event, Game, IllegalMove, Move, Reason, freeze, in_both, with_aside
from companion.games import game_class
from companion.i18n import N_, Text, both
from companion.players import LEVELS
from companion.session import autoplay
from companion.session.reconcile import NODE_BUDGET, TIME_BUDGET, adapter, explain, matches, why_not
from companion.session.store import SessionError, StaleVersion, Store, clean_location, clean_text

__all__ = ["Store", "TableSession", "Prompt", "Outcome", "StaleVersion", "SessionError", "IllegalMove"]

BLOCKING = ("choose", "illegal", "confirm")
"""Prompt kinds that stop moves until answered: the state or the table is in doubt."""
EVENTS_SHOWN = 50
OBSERVE_RETRIES = 20
HELD = 8
"""Observations of a deal that nothing explains (a card not read yet) kept to complete it later."""
ASKED_KEPT = 32
"""Observations remembered per version with the prompt they led to (not searched again)."""
ENDED = N_("the host ended this game early (undo reopens it; next game starts another)")
"""Why a write to a game the host ended is refused."""


@dataclass
class Prompt:
    """A question to the table: choose an explanation, fix an illegal change, carry out a ruling."""

    id: str
    kind: str
    text: str
    ja: str = ""
    rule: str = ""
    choices: list[dict[str, Any]] = field(default_factory=list)
    version: int = 0
    """The log version that opened it."""
    seat: int | None = None
    """The seat whose phone answers it (a ``confirm``: the host's correction of a card only that
    seat sees); None: the host or the scorekeeper answers."""

    def to_json(self) -> dict[str, Any]:
        """The prompt as the web page shows it."""
        return {"id": self.id, "kind": self.kind, "text": self.text, "ja": self.ja, "rule": self.rule,
                "choices": self.choices, "version": self.version, "seat": self.seat}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Prompt":
        """Read a prompt written by ``to_json``."""
        return cls(data["id"], data["kind"], data["text"], data.get("ja", ""), data.get("rule", ""),
                   list(data.get("choices", [])), data.get("version", 0), data.get("seat"))


@dataclass
class Outcome:
    """What an observation led to: ``nothing`` new, moves ``applied``, a ``prompt``, or ``held``: a
    deal not yet whole (a card not read), kept until a later observation completes it."""

    kind: str
    moves: list[Move] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    prompt: Prompt | None = None
    version: int = 0

    def to_json(self) -> dict[str, Any]:
        """The outcome as JSON (for ``companion session observe``)."""
        return {"kind": self.kind, "moves": [m.to_json() for m in self.moves],
                "events": [e.to_json() for e in self.events],
                "prompt": self.prompt.to_json() if self.prompt else None, "version": self.version}


SEAT_WORDS = re.compile(r"(?<![A-Za-z0-9-])(?:[Pp]layer |プレイヤー|P)([1-9][0-9]?)(?![A-Za-z0-9-])"
                        r"(?:( ?)\(([^()]*)\))?")
"""How engines name a seat they were given no name for: "P2 (blue)", "player 2", "プレイヤー2" (with
the word in brackets after it, if any: the seat's colour)."""


def name_seats(text: str, names: Sequence[str]) -> str:
    """``text`` with the engines' seat numbers ("P1", "player 2", "プレイヤー2") replaced by the
    names the table gave (engines word events before they know who sits where); a seat's colour
    after it is said as every seat label says it (``with_aside``: "Companion 2 (good, green)")."""
    def named(m: "re.Match[str]") -> str:
        seat = int(m.group(1)) - 1
        if not (0 <= seat < len(names) and names[seat]):
            return m.group(0)
        if m.group(3) is None:
            return str(names[seat])
        aside = with_aside(str(names[seat]), m.group(3), m.group(3))
        return str(aside) if m.group(2) else aside.ja   # "P2 (green)" is English, "P2(緑)" Japanese
    return SEAT_WORDS.sub(named, text) if text else text


def decided(players: int, winners: Sequence[int]) -> list[int]:
    """The winners of a finished game as the table counts them: none for a draw (every seat of a
    game of several players tied, as a 0–0 game ended early), so a draw is no shared win anywhere."""
    return [] if players > 1 and len(set(winners)) >= players else list(winners)


def verdict(names: Sequence[str], winners: Sequence[int]) -> tuple[str, str]:
    """A finished game's result in words, English and Japanese: one winner, a shared win, a draw
    (everyone tied), or a solo game lost."""
    who = [str(names[w]) for w in winners if 0 <= w < len(names)]
    if len(names) == 1:
        return ((f"{who[0]} wins.", f"{who[0]}の勝利。") if who else
                ("The game is lost.", "ゲームは敗北です。"))
    if not who or len(who) == len(names):
        return "Nobody is ahead: a draw.", "差がないので引き分け。"
    if len(who) > 1:
        return f"Shared win: {', '.join(who)}.", f"{'、'.join(who)}が勝利を分かち合います。"
    return f"{who[0]} wins.", f"{who[0]}の勝利。"


def _told_apart(sequences: Sequence[Sequence[Move]], labels: Sequence[Reason]) -> list[tuple[str, str]]:
    """Each choice's words (English, Japanese), made different where two read the same: two
    copies of a card ("A 3 turned up": Chains has three 3s in a deck) get the name printed on
    the card, "(deck 1: 3 (2/3))", which a player can look up on the card itself."""
    out = [(str(label), label.ja or str(label)) for label in labels]
    same: dict[str, list[int]] = {}
    for i, (en, _) in enumerate(out):
        same.setdefault(en, []).append(i)
    for group in (g for g in same.values() if len(g) > 1):
        cards = [[m.get("card") for m in sequences[i] if isinstance(m.get("card"), str)] for i in group]
        shared = set.intersection(*(set(c) for c in cards))
        for i, ids in zip(group, cards):
            named = [_card_or_none(c) for c in ids if c not in shared]
            named = [c for c in named if c is not None]
            if named:
                en, ja = out[i]
                out[i] = (f"{en} ({', '.join(c.name for c in named)})", f"{ja}({'、'.join(c.ja for c in named)})")
    return out


def _card_or_none(card_id: str) -> cat.Card | None:
    """The catalogue's card of this id, None for a move field that is no printed card."""
    try:
        return cat.card(card_id)
    except KeyError:
        return None


def corrected_said(by: str, was: tuple[str, str], now: tuple[str, str], confirmed: str = "") -> tuple[str, str]:
    """A correction's sentence (English, Japanese): each move in quotes ("Host replaced “Ben turns
    over … slot 2” with “Ben turns over … the work area”." read as one run-on sentence without them);
    ``was`` and ``now`` are each move's words in both languages; ``confirmed``: who confirmed it."""
    who, who_ja = ("Host", "ホスト") if by == "host" else (by, by)
    said = f"{who} replaced “{was[0]}” with “{now[0]}”.", f"{who_ja}が「{was[1]}」を「{now[1]}」に置き換えました。"
    return confirmed_said(*said, confirmed) if confirmed else said


def confirmed_said(en: str, ja: str, who: str) -> tuple[str, str]:
    """A correction's sentence (English, Japanese) with the player whose phone confirmed it."""
    return en[:-1] + f" ({who} confirmed it on their phone).", ja + f"({who}が端末で確認)"


def _first_move_of(moves: Sequence[Move], seat: int) -> Move | None:
    """The first move ``seat`` makes in ``moves`` (chance moves before it skipped)."""
    return next((m for m in moves if m.player == seat), None)


def _choice(choice_id: str, label: str, ja: str, moves: Sequence[Move] = (), override: bool = False) -> dict[str, Any]:
    return {"id": choice_id, "label": str(label), "ja": str(ja),
            "move": moves[0].to_json() if moves else None,
            "moves": [m.to_json() for m in moves], "override": override}


class _State:
    """Everything the log determines; rebuilt by ``reduce``-ing entries in order."""

    def __init__(self, game_id: str, players: int, options: dict[str, Any], names: Sequence[str],
                 app_named: Sequence[int] = ()) -> None:
        self.game_id, self.players, self.options, self.given = game_id, players, options, list(names)
        self.app_named = tuple(app_named)   # seats the app named for the companion: named for its level
        self.version = 0
        self.finished: list[dict[str, Any]] = []   # {"game", "moves", "ended"} per finished game
        self.ended: dict[str, Any] | None = None   # the host ended the current game: version, by, prompts
        self.moves: list[dict[str, Any]] = []      # {"move": Move, "override": bool, "version": int}
        self.prompts: dict[str, Prompt] = {}
        self.events: list[dict[str, Any]] = []
        self.companions: dict[int, str] = {}       # seat → level of the companion playing it
        # the seats the finished game was played with, kept while the host changes them for the next
        # game: its end screen names its seats as they played ("Companion (good)", not "(strong)")
        self.played: dict[int, str] | None = None
        self.game = self._new_game()

    def copy(self) -> "_State":
        """A copy that a trial entry may change freely (finished games and log items are shared:
        nothing changes them in place)."""
        twin = copy.copy(self)
        twin.game = self.game.clone()
        twin.finished = list(self.finished)
        twin.moves = list(self.moves)
        twin.prompts = dict(self.prompts)
        twin.events = list(self.events)
        return twin

    def is_over(self) -> bool:
        """True once the current game ended by its rules or by the host."""
        return self.ended is not None or self.game.is_over()

    def names_in(self, lang: str) -> list[str]:
        """The seats' names in ``lang`` as the log stands here (a seat the app named for the
        companion is called for the level it plays at this point of the series; a finished game's
        for the level it played, until the next game begins)."""
        companions = self.played if self.played is not None and self.is_over() else self.companions
        return autoplay.seat_names(self.given, companions, self.app_named, lang)

    @property
    def names(self) -> list[str]:
        """The seats' names in English (``names_in``)."""
        return self.names_in("en")

    def worded(self, words: Callable[[Sequence[str]], Reason]) -> Reason:
        """``words`` (a game's description for some names) with the English names in the English
        and the Japanese names in the Japanese."""
        return in_both(words, self.names_in("en"), self.names_in("ja"))

    def finished_games(self) -> list[tuple[Game, list[dict[str, Any]], dict[str, Any] | None]]:
        """Every game of the log that is over, in order: (game, its moves, the host's end or None)."""
        done = [(f["game"], f["moves"], f["ended"]) for f in self.finished]
        return done + [(self.game, self.moves, self.ended)] if self.is_over() else done

    def _new_game(self) -> Game:
        first = self.options.get("start_player", 0)
        options = dict(self.options, start_player=(first + len(self.finished)) % self.players)
        return game_class(self.game_id)(self.players, options)

    # ----------------------------------------------------------------- applying moves
    def apply(self, moves: Sequence[Move], version: int, override: bool = False) -> list[Event]:
        """Apply moves to the game (an override skips the legality check); return their events."""
        events: list[Event] = []
        for move in moves:
            if override:
                events += _apply_unchecked(self.game, move)
            else:
                events += self.game.apply(move)
            self.moves.append({"move": move, "override": override, "version": version})
        self.events += [self.named(dict(e.to_json(), version=version)) for e in events]
        return events

    def named(self, event: dict[str, Any]) -> dict[str, Any]:
        """An event's sentences with the players' names instead of seat numbers."""
        return dict(event, text=name_seats(str(event.get("text", "")), self.names_in("en")),
                    ja=name_seats(str(event.get("ja", "")), self.names_in("ja")))

    def rebuild(self) -> None:
        """Replay the current game's moves from its start (after an undo); the log keeps its
        events as they were said (a replay would list every move of the game a second time)."""
        moves, self.moves, said = self.moves, [], list(self.events)
        self.game = self._new_game()
        for m in moves:
            self.apply([m["move"]], m["version"], m["override"])
        self.events = said

    def open_rulings(self, events: list[Event], version: int) -> None:
        """A prompt for each event that asks the table to do something by hand."""
        if self.game.is_over():   # nothing is left to carry out at a finished game
            return
        ad = adapter(self.game_id)
        for i, event in enumerate(e for e in events if ad.is_ruling(e)):
            pid = f"r{version}.{i}"
            self.prompts[pid] = Prompt(pid, "ruling", name_seats(event.text, self.names_in("en")),
                                       name_seats(event.ja, self.names_in("ja")), self.game.rules_file,
                                       [_choice("done", "Done", "完了")], version)

    def close(self, ids: Sequence[str]) -> None:
        """Close the prompts with these ids (unknown ids are ignored: already closed)."""
        for pid in ids:
            self.prompts.pop(pid, None)

    # ----------------------------------------------------------------- the reducer
    def reduce(self, version: int, kind: str, data: dict[str, Any], by: str) -> list[Event]:
        """Apply one log entry; raise (changing this state partly) if it cannot be applied."""
        if version != self.version + 1:
            raise SessionError(f"log entry {version} follows {self.version}: the log is damaged")
        self.version = version
        if self.ended is not None and kind not in ("undo", "next_game", "note"):
            raise (SessionError(*both("the game is already over: {why}", why=both(ENDED)))
                   if kind == "end_game" else SessionError(*both(ENDED)))
        self.close(data.get("close", []))
        events: list[Event] = []
        if kind in ("moves", "answer", "override", "correct"):
            moves = [Move.from_json(m) for m in data.get("moves", [])]
            asked = self.prompts.get(data.get("prompt", "")) if kind == "answer" else None
            if kind == "correct":
                self._corrected(moves, by)
            if asked is not None and asked.kind == "confirm":
                self._confirmed(asked, moves, by)   # yes: the last move is replaced by ``moves``
            if kind == "override":
                self._ruled(moves, str(data.get("reason") or ""))
            if kind == "answer":
                self.prompts.pop(data["prompt"], None)
            events = self.apply(moves, version, override=data.get("override", False))
            if not data.get("rulings_seen"):
                self.open_rulings(events, version)
            if self.game.is_over():   # the game is over: no ruling is left for the table to do
                self.close([k for k, p in self.prompts.items() if p.kind == "ruling"])
        elif kind == "prompt":
            prompt = Prompt.from_json(dict(data["prompt"], id=f"p{version}", version=version))
            self.prompts[prompt.id] = prompt
            if prompt.kind == "confirm":   # the log says who was asked what (no card named)
                self.events.append({"kind": "confirm_asked", "text": prompt.text, "ja": prompt.ja,
                                    "data": {"seat": prompt.seat}, "version": version})
        elif kind == "undo":
            if "to" in data:   # a player's request the host accepted: back to and including its move
                if self.ended is not None:
                    raise SessionError(*both("the host ended this game: take back the end first"))
                self._undo(back_to=data["to"], asked_by=str(data.get("asked_by") or ""))
            elif self.ended is not None:
                self._reopen()
            else:
                self._undo()
        elif kind == "end_game":
            events = [self._end(version, by)]
        elif kind == "next_game":
            self.finished.append({"game": self.game, "moves": self.moves, "ended": self.ended})
            self.moves, self.prompts, self.ended, self.played = [], {}, None, None
            self.game = self._new_game()
            self.events.append({"kind": "next_game", "text": f"Game {len(self.finished) + 1} begins.",
                                "ja": f"第{len(self.finished) + 1}ゲーム開始。", "data": {}, "version": version})
        elif kind == "relabel":
            self._relabel({str(k): str(v) for k, v in dict(data.get("copies", {})).items()})
        elif kind == "note":
            if isinstance(data.get("companions"), dict):   # the host gave seats to the companion
                if self.is_over() and self.played is None:   # for the next game: this one played so
                    self.played = dict(self.companions)
                self.companions = {int(k): str(v) for k, v in data["companions"].items()}
        else:
            raise SessionError(*both("unknown log entry kind {kind!r}", kind=kind))
        return events

    def _corrected(self, moves: list[Move], by: str, confirmed: str = "") -> None:
        """A correction takes the last move back and says so once: "Host replaced “A” with “B”." (the
        earlier entries of the log stay as they were); ``confirmed``: the player whose phone
        confirmed it (a card only that seat sees)."""
        old = [m["move"] for m in self.moves if self.moves and m["version"] == self.moves[-1]["version"]]
        if not old:
            raise SessionError(*both("there is no move to correct in this game"))
        self._undo(quiet=True)
        was, now = self._said(old), self._said(moves)   # both from the state the old move was played in
        text, ja = corrected_said(by, (str(was), was.ja), (str(now), now.ja), confirmed)
        self.events.append(self.named({
            "kind": "corrected", "text": text, "ja": ja,
            "data": {"was": [m.to_json() for m in old], "now": [m.to_json() for m in moves], "by": by,
                     "confirmed": confirmed},
            "version": self.version}))

    def _confirmed(self, asked: Prompt, moves: list[Move], by: str) -> None:
        """The seat's phone answered the host's proposed correction: yes corrects the last move
        ("Host replaced … (Ann confirmed it on their phone)"); no (or the host withdrawing the
        question) leaves it as it was and says so."""
        seat = asked.seat if asked.seat is not None and 0 <= asked.seat < len(self.given) else None
        name = self.names[seat] if seat is not None else by
        name_ja = self.names_in("ja")[seat] if seat is not None else by
        if moves:
            self._corrected(moves, "host", confirmed=name)
            return
        if by == "host":
            text, ja = "The host withdrew the question: the move stays as it was.", "ホストは質問を取り下げました。手はそのままです。"
        else:
            text, ja = f"{name} said no: the move stays as it was.", f"{name_ja}はいいえと答えました。手はそのままです。"
        self.events.append({"kind": "confirm_denied", "text": text, "ja": ja, "data": {"seat": seat},
                            "version": self.version})

    def _relabel(self, copies: dict[str, str]) -> None:
        """The camera reads other copies than the game names (a Chains deal entered on the host
        page; ``copies``: the game's id → the id read): each pair swapped in every move of this
        game, replayed, and said once."""
        cards = {a: (_card_or_none(a), _card_or_none(b)) for a, b in copies.items()}
        if not self.moves or not copies or any(None in pair for pair in cards.values()):
            raise SessionError(*both("there is no move to relabel in this game"))
        swap = dict(copies, **{b: a for a, b in copies.items()})
        # new entries: a trial state shares the old ones with the state it was copied from
        self.moves = [dict(m, move=Move.from_json(_renamed(m["move"].to_json(), swap))) for m in self.moves]
        self.rebuild()
        pairs = [cards[a] for a in sorted(copies)]
        en = ", ".join(f"{read.name} for {had.name}" for had, read in pairs)
        ja = "、".join(f"{had.ja}ではなく{read.ja}" for had, read in pairs)
        self.events.append({"kind": "relabel", "text": f"The camera reads which copies were laid: {en}.",
                            "ja": f"カメラが置かれたカードを読み取りました: {ja}。",
                            "data": {"copies": copies}, "version": self.version})

    def _ruled(self, moves: list[Move], reason: str) -> None:
        """An override is logged as what it is: "House ruling (reason): the move."."""
        said = self._said(moves)
        self.events.append(self.named({
            "kind": "house_ruling", "text": f"House ruling ({reason}): {said}.",
            "ja": f"ハウスルール({reason}): {said.ja}。",
            "data": {"moves": [m.to_json() for m in moves], "reason": reason}, "version": self.version}))

    def _said(self, moves: list[Move]) -> Any:
        """``moves`` in words, played from the game as it stands."""
        return self.worded(lambda names: self.game.describe_moves(moves, names))

    def _end(self, version: int, by: str) -> Event:
        """The host ends the current game early: scores as they stand, open prompts closed."""
        if self.game.is_over():
            raise SessionError(*both("the game is already over: there is nothing to end"))
        self.ended = {"version": version, "by": by, "prompts": self.prompts}
        self.prompts = {}
        scores, winners = self.game.scores(), decided(self.players, self.game.winners())
        table = ", ".join(f"{n} {s}" for n, s in zip(self.names, scores))
        table_ja = "、".join(f"{n} {s}点" for n, s in zip(self.names_in("ja"), scores))
        said = verdict(self.names, winners)[0] if self.players > 1 else ""
        said_ja = verdict(self.names_in("ja"), winners)[1] if self.players > 1 else ""
        event = Event.of("ended_by_host", f"The host ended the game early. Scores as they stand: {table}.{' ' + said if said else ''}",
                         f"ホストがゲームを途中で終了しました。現時点の得点:{table_ja}。{said_ja}",
                         scores=scores, winners=winners)
        self.events.append(dict(event.to_json(), version=version))
        return event

    def _reopen(self) -> None:
        """Undo of the host's end: the game goes on as it was, its open prompts with it."""
        assert self.ended is not None
        self.prompts, self.ended = dict(self.ended["prompts"]), None
        self.events.append({"kind": "reopened", "text": "The end of the game was taken back: play on.",
                            "ja": "ゲーム終了を取り消しました。続けてください。", "data": {},
                            "version": self.version})

    def _undo(self, back_to: int | None = None, asked_by: str = "", quiet: bool = False) -> None:
        """Take back the newest move entry (all the moves one observation applied), or with
        ``back_to`` every move entry from that log version on, as one undo with one event
        (``quiet``: none, a correction says it in its own words)."""
        if not self.moves:
            raise SessionError(*both("there is no move to undo in this game"))
        last = self.moves[-1]["version"] if back_to is None else back_to
        if not any(m["version"] == last for m in self.moves):
            raise SessionError(*both("no move of this game was entered at version {last}", last=last))
        undone: list[Move] = []
        entries = set()
        while self.moves and self.moves[-1]["version"] >= last:
            entries.add(self.moves[-1]["version"])
            undone.insert(0, self.moves.pop()["move"])   # a reconciled observation may have applied several
        self.prompts = {k: p for k, p in self.prompts.items() if p.version < last}
        self.rebuild()
        if quiet:
            return
        said = self._said(undone)   # worded in the state they were played from
        if asked_by and len(entries) > 1:
            text = f"{asked_by}'s move was taken back, with the moves after it: {said}."
            ja = f"{asked_by}の手とその後の手を取り消しました: {said.ja}。"
        elif asked_by:
            text, ja = f"{asked_by}'s move was taken back: {said}.", f"{asked_by}の手を取り消しました: {said.ja}。"
        else:
            text, ja = f"Taken back: {said}.", f"取り消し: {said.ja}。"
        data: dict[str, Any] = {"moves": [m.to_json() for m in undone]}
        if asked_by:
            data["asked_by"] = asked_by
        self.events.append({"kind": "undo", "text": text, "ja": ja, "data": data, "version": self.version})


def _renamed(value: Any, swap: Mapping[str, str]) -> Any:
    """A JSON value with every string in ``swap`` replaced by its counterpart."""
    if isinstance(value, str):
        return swap.get(value, value)
    if isinstance(value, dict):
        return {k: _renamed(v, swap) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_renamed(v, swap) for v in value]
    return value


def _deal_awaited(game: Game) -> bool:
    """Whether ``game`` waits for a deal that only the table can show (a chance move the engine
    does not list: Wheel's circle, Chains' terminal rows)."""
    return game.is_chance_node() and not game.is_over() and not game.legal_moves()


def _apply_unchecked(game: Game, move: Move) -> list[Event]:
    """A house ruling: apply a move the rules refuse (tried on a copy first, so a crash changes nothing)."""
    trial = game.clone()
    try:
        events = trial._apply(move)
    except Exception as err:  # the engine cannot represent this move at all
        words = game.describe_move(move)
        raise SessionError(f"the engine cannot carry out “{words}” even as a house ruling: {err}",
                           f"「{words.ja}」はハウスルールとしても実行できません: {err}") from None
    trial.log.append(move)
    trial.events.extend(events)
    game.__dict__.update(trial.__dict__)
    return events


GameOverListener = Callable[[sqlite3.Connection, str, "_State"], None]
_game_over_listeners: list[GameOverListener] = []


def on_game_over(listener: GameOverListener) -> None:
    """Run ``listener(db, session_id, state)`` inside the transaction of every log entry that ends a
    game, or that is committed while a game is over (the undo that reopens it, the next game):
    ``state`` is the session as the entry leaves it (``game_id``, ``names``, ``finished_games()``),
    so what the listener writes commits with the entry or not at all (the play history,
    ``companion.history``, listens so); an exception refuses the entry. Registering twice registers once."""
    if listener not in _game_over_listeners:
        _game_over_listeners.append(listener)


def _locked(method: Any) -> Any:
    """Run a method under the session's own lock: a read that catches up with the store and a
    write that commits must not interleave, or both would reduce the same log entry."""
    @functools.wraps(method)
    def run(self: "TableSession", *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return run


class TableSession:
    """One table: a game (or a series) fed by the camera and by phones; see docs/session.md.

    One object may be shared by many threads (the web server's): every method that reads or
    changes the state holds the object's lock, so a page load racing a move sees one consistent
    version."""

    def __init__(self, store: Store, row: dict[str, Any]) -> None:
        self._lock = threading.RLock()
        self.store = store
        self.id: str = row["id"]
        self.code: str = row["code"]
        self.game_id: str = row["game"]
        settings = row["settings"]
        self.players: int = settings["players"]
        self.options: dict[str, Any] = settings["options"]
        given: list[str] = settings["names"]
        self.seats: list[Any] | None = settings.get("seats")
        self.rounds: int | None = settings.get("rounds")
        self.target: int | None = settings.get("target")
        self.location: str | None = settings.get("location")   # where the table is (the history's plays)
        self.created: float = row["created"]
        # the seats the app named for the companion ("Companion (good)"): called for the level they
        # play, in the reader's language; a table made before this was stored is read by their names
        app_named = settings.get("app_named")
        if app_named is None:
            app_named = [i for i, n in enumerate(given) if autoplay.companion_name_number(n) is not False]
        self._st = _State(self.game_id, self.players, self.options, given, app_named)
        self._steady = 0   # inside ``steady()``: reads do not ask the store again
        self._asked: dict[tuple[int, Any], Outcome] = {}
        """(version, observation) → the prompt or hold it led to: the same view at the same
        version is not searched again (a card flickering in and out of a reading)."""
        self.searched = 0
        """States the reconciler visited for this object's observations (the search's cost)."""
        self._catch_up()

    # ----------------------------------------------------------------- creating and opening
    @classmethod
    def create(cls, store: Store, game_id: str, players: int, options: Mapping[str, Any] | None = None,
               names: Sequence[str] | None = None, seats: Sequence[Any] | None = None,
               rounds: int | None = None, target: int | None = None,
               companions: Mapping[int, str] | None = None, location: str | None = None) -> "TableSession":
        """A new session (persisted); bad settings raise ``GameError`` and store nothing.
        ``companions``: the seats the companion plays (seat → level); ``location``: where the table is
        (its plays carry it into the history)."""
        cls_ = game_class(game_id)
        options = adapter(game_id).session_options(dict(options or {}))
        options = cls_.validate_options(options, players) if isinstance(players, int) else options
        cls_(players, options)   # checks the player count too
        names = list(names) if names else [f"P{i + 1}" for i in range(players)]
        # a name is printed by `companion session list/show` and shown on every phone: no ESC or BEL
        names = [clean_text(n) if isinstance(n, str) else n for n in names]
        if len(names) != players or not all(isinstance(n, str) and n.strip() for n in names):
            raise SessionError(*both("give {players} non-empty names, one per seat (got {names})", players=players,
                                     names=names))
        if seats is not None and len(seats) != players:
            raise SessionError(f"give {players} seats, one per player (got {len(seats)})")
        for label, value in (("rounds", rounds), ("target", target)):
            if value is not None and (not isinstance(value, int) or value < 1):
                raise SessionError(*both("{label} must be a whole number of at least 1, got {value!r}", label=label,
                                         value=value))
        settings = {"players": players, "options": options, "names": [n.strip() for n in names],
                    "seats": list(seats) if seats is not None else None, "rounds": rounds, "target": target,
                    # a companion seat called "Companion (good)" is named by the app, not by the host
                    "app_named": [i for i in sorted(companions or {})
                                  if 0 <= i < players and autoplay.companion_name_number(names[i].strip()) is not False]}
        place = clean_location(location)
        if place:
            settings["location"] = place
        companions = dict(companions or {})
        # a companion seat is no person, whatever the host named it: never a known player
        people = [n.strip() for i, n in enumerate(names) if i not in companions]
        session_id, _ = store.create_session(game_id, settings, people=people)
        session = cls.open(store, session_id)
        if companions:
            session.set_companions(companions)
        return session

    @classmethod
    def open(cls, store: Store, session_id: str) -> "TableSession":
        """The session rebuilt by replaying its log."""
        return cls(store, store.session_row(session_id))

    @_locked
    def _catch_up(self, always: bool = False) -> None:
        """Apply entries other writers (threads, processes) committed since we last looked (not
        again inside ``steady()``, unless ``always``: a write)."""
        if self._steady and not always:
            return
        for version, kind, data, by in self.store.entries(self.id, after=self._st.version):
            self._st.reduce(version, kind, data, by)

    @_locked
    def refresh(self) -> "TableSession":
        """Bring this object up to date with the store; return it."""
        self._catch_up()
        return self

    @contextmanager
    def steady(self) -> Iterator["TableSession"]:
        """Hold the session's lock and read one version: caught up with the store once, on
        entering; the reads inside do not ask it again (a phone's view asked it five times, each
        a query that lets other threads take the GIL while the table's lock is held: issue 23).
        A write inside still catches up first."""
        with self._lock:
            self._catch_up()
            self._steady += 1
            try:
                yield self
            finally:
                self._steady -= 1

    # ----------------------------------------------------------------- reading
    @property
    def lock(self) -> threading.RLock:
        """The session's lock: hold it to read several things of one version together."""
        return self._lock

    @property
    def version(self) -> int:
        """The number of committed log entries seen by this object."""
        return self._st.version

    @property
    def game(self) -> Game:
        """The current engine game."""
        return self._st.game

    @property
    def prompts(self) -> list[Prompt]:
        """The open prompts, oldest first."""
        return list(self._st.prompts.values())

    @property
    def names(self) -> list[str]:
        """The seats' names in English (``names_in``)."""
        return self._st.names

    def names_in(self, lang: str) -> list[str]:
        """The seats' names in ``lang``: a seat the app named for the companion is called for the
        level it plays now, in that language ("Companion (strong)", 「コンパニオン(上級)」)."""
        return self._st.names_in(lang)

    def worded(self, words: Callable[[Sequence[str]], Reason]) -> Reason:
        """``words`` (a game's description for some seat names) with each language's names."""
        return self._st.worded(words)

    @property
    def companions(self) -> dict[int, str]:
        """The seats the companion plays, each with its level (``companion.players.LEVELS``)."""
        return dict(self._st.companions)

    @_locked
    def set_companions(self, seats: Mapping[int, str], *, by: str = "host") -> None:
        """Give these seats to the companion at these levels (the others to people): when the table
        is created or between games, not while a game is under way."""
        self._catch_up()
        wanted = {}
        for seat, level in dict(seats).items():
            if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
                raise SessionError(f"there is no seat {seat!r}: seats are 0–{self.players - 1}",
                                   f"席{seat!r}はありません。席は0〜{self.players - 1}です")
            if level not in LEVELS:
                raise SessionError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}",
                                   f"レベル{level!r}はありません: {'、'.join(LEVELS)}のどれかを選んでください")
            wanted[seat] = level
        if wanted == self._st.companions:
            return
        if self._st.moves and not self.is_over():
            raise SessionError(*both("the companion takes or leaves a seat between games, not during one"))
        self._commit("note", {"companions": {str(k): v for k, v in sorted(wanted.items())}}, by, None)
        # a name typed for a seat now the companion's was remembered as a person when the table was made
        self.store.forget_people([self._st.given[seat] for seat in wanted])

    @_locked
    def history(self) -> list[dict[str, Any]]:
        """Every event of the session from its start, all games of a series (``state`` shows the
        last few)."""
        self._catch_up()
        return list(self._st.events)

    @_locked
    def last_turn(self) -> list[Move]:
        """The moves of the newest log entry if it is a move entry (what a player may take back
        before anyone acts after them), else []."""
        self._catch_up()
        moves = self._st.moves
        if not moves or moves[-1]["version"] != self.version or moves[-1]["override"]:
            return []
        last = moves[-1]["version"]
        return [m["move"] for m in moves if m["version"] == last]

    @_locked
    def last_moves_of(self, seat: int | None) -> tuple[int, list[Move]]:
        """The version and moves of the newest move entry of ``seat`` in the current game (any
        seat's for None; chance moves count for nobody); ``(0, [])`` when there is none."""
        self._catch_up()
        for m in reversed(self._st.moves):
            if not m["override"] and (seat is None or m["move"].player == seat):
                return m["version"], [x["move"] for x in self._st.moves if x["version"] == m["version"]]
        return 0, []

    def game_number(self) -> int:
        """The current game's number in this session (1 for the first)."""
        return len(self._st.finished) + 1

    def blocked(self) -> Prompt | None:
        """The first open prompt that stops moves (choose or illegal), or None."""
        return next((p for p in self._st.prompts.values() if p.kind in BLOCKING), None)

    def is_over(self) -> bool:
        """True once the current game is over: by its rules, or ended early by the host."""
        return self._st.is_over()

    @_locked
    def finished_games(self) -> list[tuple[Game, list[dict[str, Any]], dict[str, Any] | None]]:
        """Every game of the log that is over, in order: (game, its moves, the host's end or None)."""
        self._catch_up()
        return self._st.finished_games()

    @property
    def ended_by_host(self) -> bool:
        """True if the host ended the current game early (``end_game``)."""
        return self._st.ended is not None

    @_locked
    def legal_moves(self) -> list[Move]:
        """The moves of the player to move ([] at a chance node, when over or while a prompt blocks)."""
        if self.blocked() or self.is_over() or self.game.is_chance_node():
            return []
        return self.game.legal_moves()

    @_locked
    def chance_moves(self) -> list[Move]:
        """At a chance node, the outcomes the table can name ([] if too many to list, e.g. a shuffle)."""
        if self.blocked() or self.is_over() or not self.game.is_chance_node():
            return []
        return self.game.legal_moves()

    @_locked
    def series(self) -> dict[str, Any]:
        """Each finished game's scores, the running totals and whether the series is over."""
        over_games = [(g, ended) for g, _, ended in self._games() if g.is_over() or ended]
        games = [g.scores() for g, _ in over_games]
        totals = [sum(g[p] for g in games) for p in range(self.players)]
        if self.rounds is not None or self.target is not None:
            over = ((self.rounds is not None and len(games) >= self.rounds)
                    or (self.target is not None and bool(games) and max(totals) >= self.target))
        else:
            over = self.is_over()
        # the series' winners once it is over: the best totals (a tie shares it, all tied is a draw)
        best = [p for p, t in enumerate(totals) if games and t == max(totals)]
        return {"games": games, "totals": totals, "is_over": over, "rounds": self.rounds,
                "winners": decided(self.players, best) if over else [],
                "target": self.target, "game_number": len(self._st.finished) + 1,
                "ended_by_host": [ended for _, ended in over_games]}

    @_locked
    def state(self, player: int | None = None) -> dict[str, Any]:
        """Everything a page shows, as JSON (``player``: whose private view; None for the table)."""
        self._catch_up()
        game, over = self.game, self.is_over()
        turn = TERMINAL if over else game.current_player()   # an ended game has nobody to move
        view = game.player_view(player) if player is not None else {
            "layout": game.layout(), "scores": game.scores(), "current_player": turn}
        if "current_player" in view:
            view = dict(view, current_player=turn)
        return {"id": self.id, "code": self.code, "game": self.game_id, "title": game.title,
                "title_ja": game.title_ja, "players": self.players, "names": self.names,
                "options": self.options, "version": self.version,
                "current_player": turn, "is_over": over, "ended_by_host": self.ended_by_host,
                "scores": game.scores(), "winners": decided(self.players, game.winners()) if over else [],
                "layout": game.layout(), "view": view,
                "legal_moves": [m.to_json() for m in self.legal_moves()],
                "chance_moves": [m.to_json() for m in self.chance_moves()[:60]],
                "prompts": [p.to_json() for p in self.prompts],
                "events": self._st.events[-EVENTS_SHOWN:],
                "moves": [dict(m["move"].to_json(), version=m["version"], override=m["override"])
                          for m in self._st.moves],
                "series": self.series()}

    # ----------------------------------------------------------------- writing
    @_locked
    def _commit(self, kind: str, data: dict[str, Any], by: str, expected_version: int | None,
                after: Callable[[Any], None] | None = None) -> list[Event]:
        """Check an entry against a copy of the state, commit it, then apply it: all or nothing."""
        self._catch_up(always=True)
        if expected_version is not None and expected_version != self.version:
            raise StaleVersion(expected_version, self.version)
        by = clean_text(by)
        if "reason" in data:
            data = dict(data, reason=clean_text(data["reason"], 200))
        trial = self._st.copy()
        events = trial.reduce(self.version + 1, kind, data, by)   # raises: nothing stored
        finished = trial.is_over()
        # a game ends, or is reopened: its listeners follow; the caller's own rows change too, all in
        # the entry's transaction
        listeners = list(_game_over_listeners) if finished or self._st.is_over() else []

        def in_transaction(db: sqlite3.Connection) -> None:
            for listener in listeners:
                listener(db, self.id, trial)
            if after is not None:
                after(db)
        self.store.append(self.id, self.version + 1, kind, data, by, finished,
                          after=in_transaction if listeners or after is not None else None)   # raises StaleVersion
        self._st = trial
        return events

    def _check_version(self, expected_version: int | None) -> None:
        """A write based on an old version is refused before anything else is looked at (409)."""
        if expected_version is not None and expected_version != self.version:
            raise StaleVersion(expected_version, self.version)

    def _require_unblocked(self) -> None:
        prompt = self.blocked()
        if prompt:
            raise SessionError(*both("answer the open prompt first ({id}: {text})", id=prompt.id,
                                     text=Text(prompt.text, prompt.ja or prompt.text)))

    @_locked
    def play(self, move: Move, *, by: str = "manual", expected_version: int) -> list[Event]:
        """A tapped move (a seat's, or a chance move naming the card drawn); IllegalMove if refused."""
        self._catch_up()
        if expected_version != self.version:
            raise StaleVersion(expected_version, self.version)
        if self.ended_by_host:
            said = both("The game is over: {why}.", why=both(ENDED))
            raise IllegalMove(said.en, "game over", said.ja)
        self._require_unblocked()
        self.game.check(move)
        rulings = [p.id for p in self.prompts if p.kind == "ruling"]   # the table has moved on
        return self._commit("moves", {"moves": [move.to_json()], "source": by, "close": rulings},
                            by, expected_version)

    @_locked
    def observe(self, observation: Mapping[str, Any], *, source: str = "camera") -> Outcome:
        """Reconcile a stable observation of the table: apply, ask to choose, or say what is wrong."""
        if not isinstance(observation, Mapping):
            raise SessionError(*both("an observation must be a JSON object shaped like the game's layout"))
        obs = dict(observation)
        for _ in range(OBSERVE_RETRIES):
            self._catch_up(always=True)
            try:
                return self._observe_once(obs, source)
            except StaleVersion:
                continue   # someone wrote first: reconcile again against the new state
        raise SessionError(*both("the session keeps changing under this observation; try again"))

    def _observe_once(self, obs: dict[str, Any], source: str) -> Outcome:
        version, game = self.version, self.game
        obs = adapter(game.id).align(game, obs)
        key = (version, freeze(obs))
        if key in self._asked:
            return self._asked[key]     # asked (or held) already at this version: no new search
        outcome = self._reconciled(obs, source)
        if outcome.kind in ("prompt", "held"):
            self._asked = {k: o for k, o in self._asked.items() if k[0] == outcome.version}
            if len(self._asked) < ASKED_KEPT:
                self._asked[(outcome.version, key[1])] = outcome
        return outcome

    def _reconciled(self, obs: dict[str, Any], source: str) -> Outcome:
        """``observe``'s work for one observation in the game's numbering."""
        version, game = self.version, self.game
        open_ids = {p.kind: [] for p in self.prompts}
        for p in self.prompts:
            open_ids[p.kind].append(p.id)
        if matches(obs, game.layout()):
            return self._as_it_stands(open_ids, source, version)
        copies = adapter(game.id).copies(game, obs)
        if copies:
            # the deal was entered with other copies than were laid: named as the table shows them
            self._commit("relabel", {"copies": copies, "source": source}, source, version)
            return self._reconciled(obs, source)
        if self.is_over():
            return Outcome("nothing", version=version)   # the table is being cleared: nothing to read
        if open_ids.get("choose"):
            prompt = self._st.prompts[open_ids["choose"][0]]
            settled = self._settled_by_table(prompt, obs)
            if settled is None:
                return Outcome("prompt", prompt=prompt, version=version)
            # the table went on and shows what only one of the choices leads to (a ruling
            # carried out, a card turned over): that choice was it, no tap needed
            choice, rest = settled
            moves = [Move.from_json(m) for m in choice["moves"]] + rest
            events = self._commit("answer", {
                "prompt": prompt.id, "choice": choice["id"], "moves": [m.to_json() for m in moves],
                "override": False, "rulings_seen": True, "settled_by": "table", "observation": obs,
                "close": open_ids.get("ruling", []) + open_ids.get("illegal", [])}, source, version)
            return Outcome("applied", moves, events, version=self.version)
        # observations held in the store (a restart loses none), of this deal only
        deal = [len(self._st.finished), len(game.log)]
        held_at, kept = self.store.held(self.id)
        held = kept if held_at == deal else []
        if held:
            obs = adapter(game.id).complete(obs, held)
        found = explain(game, obs, held=held)
        self.searched += found.searched
        if found.sequences == [[]]:
            # the table as it stands but for a card perhaps only not read (``Adapter.doubt``)
            return self._as_it_stands(open_ids, source, version)
        if not found.sequences and _deal_awaited(game):
            # a deal read off the table that is not whole yet (a card not read, a hand over it):
            # kept, not refused; a later observation completes it (and may show moves after it)
            self.store.hold(self.id, deal, held[-(HELD - 1):] + [obs])
            return Outcome("held", version=version)
        if held_at is not None:
            self.store.drop_held(self.id)
        sequences = found.sequences
        asked = self._companion_asked()
        if asked is not None and sequences:
            # the companion's seat is to move: only the card it asked for may have been laid
            sequences = [seq for seq in sequences if _first_move_of(seq, asked.player) == asked]
            if not sequences:
                return self._prompt_once(self._wrong_for_companion(asked), obs, open_ids, source, version)
        if len(sequences) == 1:
            moves = sequences[0]
            close = open_ids.get("illegal", []) + ([] if found.pending else open_ids.get("ruling", []))
            events = self._commit("moves", {"moves": [m.to_json() for m in moves], "source": source,
                                            "close": close, "rulings_seen": not found.pending,
                                            "observation": obs}, source, version)
            return Outcome("applied", moves, events, version=self.version)
        if sequences:
            prompt = self._choose_prompt(sequences, found.waiting)
        else:
            prompt = self._illegal_prompt(obs, found.exhausted)
        return self._prompt_once(prompt, obs, open_ids, source, version)

    def _as_it_stands(self, open_ids: Mapping[str, list[str]], source: str, version: int) -> Outcome:
        """The table shows the current state: rulings are done, an illegal change was put right."""
        close = open_ids.get("ruling", []) + open_ids.get("illegal", [])
        if not close:
            return Outcome("nothing", version=version)
        self._commit("note", {"close": close, "source": source, "why": "table matches"}, source, version)
        return Outcome("nothing", version=self.version)

    def _prompt_once(self, prompt: Prompt, obs: dict[str, Any], open_ids: Mapping[str, list[str]], source: str,
                     version: int) -> Outcome:
        """Ask ``prompt`` (an older illegal prompt closes), unless the same question is open already."""
        if any(p.kind == prompt.kind and p.text == prompt.text for p in self.prompts):
            same = next(p for p in self.prompts if p.kind == prompt.kind and p.text == prompt.text)
            return Outcome("prompt", prompt=same, version=version)   # asked already: do not repeat
        self._commit("prompt", {"prompt": prompt.to_json(), "observation": obs,
                                "close": open_ids.get("illegal", [])}, source, version)
        return Outcome("prompt", prompt=self._st.prompts[f"p{self.version}"], version=self.version)

    def _companion_asked(self) -> Move | None:
        """The move the companion asked for, when one of its seats is to move (else None)."""
        if not self._st.companions or self.game.current_player() not in self._st.companions:
            return None
        from companion.session import autoplay   # autoplay reads the session: imported when needed
        said = autoplay.asked(self)
        return Move.from_json(said["move"]) if said else None

    def _wrong_for_companion(self, asked: Move) -> Prompt:
        """The table shows a move for the companion's seat that it did not ask for: put it right."""
        words = self.worded(lambda names: self.game.describe_move(asked, names))
        text = (f"The table shows another move for the companion's seat than the one it asked for: "
                f"{words}. Lay the card it asked for.")
        ja = f"コンパニオンの席に、指示と違う手が置かれました。指示は「{words.ja}」です。指示どおりのカードを置いてください。"
        return Prompt("", "illegal", text, ja, "The companion's move (docs/players.md)",
                      [_choice("fixed", "We will fix the table", "卓を直します")])

    def _settled_by_table(self, prompt: Prompt, obs: dict[str, Any]) -> tuple[dict[str, Any], list[Move]] | None:
        """The choice of an open ``choose`` prompt that a newer observation tells apart, with the
        moves that lead from it to what the table shows: the one choice from which the table is
        explained exactly with the fewest player moves (a ruling carried out, the next card turned
        over); None while two or more explain it as well (or none does)."""
        found: list[tuple[int, dict[str, Any], list[Move]]] = []
        choices = [c for c in prompt.choices if c.get("moves") and not c.get("override")]
        # one search's budget shared by all the choices: a long list costs no more than one view
        budget, deadline = max(NODE_BUDGET // max(len(choices), 1), 1), time.thread_time() + TIME_BUDGET
        for choice in choices:
            trial = self.game.clone()
            try:
                for m in choice["moves"]:
                    trial.apply(Move.from_json(m))
            except IllegalMove:
                continue
            if matches(obs, trial.layout()):
                found.append((0, choice, []))
                continue
            explained = explain(trial, obs, budget=budget, seconds=max(deadline - time.thread_time(), 0.0))
            self.searched += explained.searched
            if len(explained.sequences) == 1 and not explained.pending:
                rest = explained.sequences[0]
                found.append((sum(1 for m in rest if m.player >= 0), choice, rest))
        if not found:
            return None
        fewest = min(cost for cost, _, _ in found)
        best = [(choice, rest) for cost, choice, rest in found if cost == fewest]
        return best[0] if len(best) == 1 else None

    def _choose_prompt(self, sequences: list[list[Move]], waiting: list[bool]) -> Prompt:
        game = self.game
        labels = _told_apart(sequences, [self.worded(lambda names, seq=seq: game.describe_moves(seq, names))
                                         for seq in sequences])
        choices = []
        for i, (seq, pending, (label, ja)) in enumerate(zip(sequences, waiting, labels)):
            choices.append(dict(_choice(f"c{i + 1}", label, ja, seq), rulings_seen=not pending))
        choices.append(_choice("none", "None of these: we will fix the table", "どれでもない:卓を直します"))
        return Prompt("", "choose", f"{game.title}: the camera cannot tell what happened. Which was it?",
                      f"{game.title_ja}: カメラでは判別できません。どれでしたか?", "", choices)

    def _illegal_prompt(self, obs: dict[str, Any], exhausted: bool) -> Prompt:
        reason, rule, tried = why_not(self.game, obs, self.names)
        text = str(reason)
        # an engine without Japanese words: say so in Japanese, then give its English reason
        ja = reason.ja or f"ルール違反: {text}"
        waiting = [p for p in self.prompts if p.kind == "ruling"]
        if waiting:   # most often the table has not carried out a ruling yet
            text = f"{text} Still to do on the table: {waiting[0].text}"
            ja += f" 卓でまだ済んでいない処理: {waiting[0].ja or waiting[0].text}"
        if exhausted:   # the search stopped at its budget: a long legal explanation may exist
            text += " (So many moves could lie between the last two views that not all were tried: " \
                    "if the table is right, enter the moves by hand.)"
            ja += "(前回の映像との間にありうる手が多すぎて、すべては試せませんでした。卓が正しければ、手を手入力してください。)"
        choices = [_choice("fixed", "We will fix the table", "卓を直します")]
        if tried:
            label = self.worded(lambda names: self.game.describe_move(tried[0], names))
            choices.append(_choice("override", f"House ruling: accept “{label}”", f"ハウスルール:「{label.ja}」を認める",
                                   tried[:1], override=True))
        return Prompt("", "illegal", text, ja, rule, choices)

    @_locked
    def answer(self, prompt_id: str, choice_id: str, *, by: str, expected_version: int) -> list[Event]:
        """Answer an open prompt with one of its choices (the chosen moves are applied)."""
        self._catch_up()
        if expected_version != self.version:
            raise StaleVersion(expected_version, self.version)
        if self.ended_by_host:
            raise SessionError(*both("there is nothing left to answer: {why}", why=both(ENDED)))
        prompt = self._st.prompts.get(prompt_id)
        if prompt is None:
            open_ids = ', '.join(self._st.prompts)
            raise SessionError(*both("no open prompt {prompt_id!r} (open: {open})", prompt_id=prompt_id,
                                     open=open_ids or both("none")))
        choice = next((c for c in prompt.choices if c["id"] == choice_id), None)
        if choice is None:
            raise SessionError(*both("prompt {prompt_id} has no choice {choice_id!r} (choices: {choices})",
                                     prompt_id=prompt_id, choice_id=choice_id,
                                     choices=", ".join(c["id"] for c in prompt.choices)))
        data = {"prompt": prompt_id, "choice": choice_id, "moves": choice["moves"],
                "override": choice.get("override", False), "rulings_seen": choice.get("rulings_seen", False)}
        return self._commit("answer", data, by, expected_version)

    @_locked
    def undo(self, *, by: str = "host", expected_version: int) -> Move | None:
        """Take back the last move (all moves one observation applied together); host only.
        Right after ``end_game`` it takes back the end instead (the game goes on) and returns None."""
        self._catch_up()
        self._check_version(expected_version)
        if self.ended_by_host:
            self._commit("undo", {}, by, expected_version)
            return None
        if not self._st.moves:
            raise SessionError(*both("there is no move to undo in this game"))
        last = self._st.moves[-1]["move"]
        self._commit("undo", {}, by, expected_version)
        return last

    @_locked
    def undo_back_to(self, version: int, *, asked_by: str, by: str = "host", expected_version: int,
                     after: Callable[[Any], None] | None = None) -> list[Move]:
        """Take back every move entry of the current game from log ``version`` on (a player's
        request to take back their move, accepted by the host) as ONE undo entry with one event
        ("Ann's move was taken back"); ``after`` runs in the entry's own transaction. Returns the
        moves taken back."""
        self._catch_up()
        self._check_version(expected_version)
        if self.ended_by_host:
            raise SessionError(*both("the host ended this game: take back the end first"))
        undone = [m["move"] for m in self._st.moves if m["version"] >= version]
        self._commit("undo", {"to": version, "asked_by": clean_text(asked_by)}, by, expected_version, after=after)
        return undone

    @_locked
    def correct(self, move: Move, *, by: str = "host", expected_version: int) -> list[Event]:
        """Replace the last move by ``move`` (a misread card): one logged correction."""
        self._catch_up()
        self._check_version(expected_version)
        trial = self._st.copy()
        trial._undo()
        try:
            trial.game.check(move)
        except IllegalMove as err:
            # the host's picker offers the moves of now (an override's): a correction must be a move
            # that could have been made instead of the last one, which the rules' reason alone never said
            last = self._st.moves[-1]["move"]
            was = self.worded(lambda names: trial.game.describe_moves([last], names))
            raise IllegalMove(Reason(f"To replace the last move, “{was}”, choose a move that could have been made "
                                     f"instead of it: {err.reason}",
                                     f"直前の手「{was.ja}」を差し替えるには、その代わりに指せた手を選んでください: {err.ja}"),
                              err.rule) from err
        return self._commit("correct", {"moves": [move.to_json()]}, by, expected_version)

    @_locked
    def ask_to_confirm(self, move: Move, *, by: str = "host", expected_version: int) -> Prompt:
        """The host's correction of the last move when its card is one only that seat's phone sees
        (a Seven Hills card laid face down): asked of that seat as a ``confirm`` prompt, its phone
        shows the card and answers yes (the correction is made) or no; the game waits meanwhile."""
        self._catch_up()
        self._check_version(expected_version)
        if not self._st.moves:
            raise SessionError(*both("there is no move to correct in this game"))
        last = self._st.moves[-1]["move"]
        trial = self._st.copy()
        trial._undo()
        trial.game.check(move)
        if move.player != last.player:
            raise SessionError(*both("only the seat that made the last move can confirm its correction"))
        # everyone reads it without the card; the seat's own phone reads it with its cards
        was = self.worded(lambda names: self.game.describe_moves([last.without("card")], names))
        now = self.worded(lambda names: trial.game.describe_moves([move.without("card")], names))
        name, name_ja = self.names[last.player], self.names_in("ja")[last.player]
        if str(was) == str(now):   # only the card differs
            text = (f"The host asks {name} to confirm on their phone which card they laid: “{was}”.",
                    f"ホストが{name_ja}に、置いたカードを端末で確認するよう求めています:「{was.ja}」。")
        else:
            text = (f"The host asks {name} to confirm on their phone: “{now}”, not “{was}”.",
                    f"ホストが{name_ja}に端末での確認を求めています:「{was.ja}」ではなく「{now.ja}」。")
        was_mine = self.worded(lambda names: self.game.describe_moves([last], names))
        now_mine = self.worded(lambda names: trial.game.describe_moves([move], names))
        yes = dict(_choice("yes", "Yes, that is right", "はい、その通り", [move]),
                   said=f"The host proposes “{now_mine}” instead of “{was_mine}”. Is that right?",
                   said_ja=f"ホストの提案:「{was_mine.ja}」ではなく「{now_mine.ja}」。正しいですか?",
                   was=last.get("card"))
        prompt = Prompt("", "confirm", text[0], text[1],
                        choices=[yes, _choice("no", "No, it was right before", "いいえ、元のままで正しい")],
                        seat=last.player)
        self._commit("prompt", {"prompt": prompt.to_json()}, by, expected_version)
        return self._st.prompts[f"p{self.version}"]

    @_locked
    def override(self, move: Move, *, reason: str, expected_version: int, by: str = "host") -> list[Event]:
        """A house ruling: apply ``move`` even if the rules refuse it; logged with the reason."""
        self._catch_up()
        self._check_version(expected_version)
        if not reason or not reason.strip():
            raise SessionError(*both("an override needs a reason (it is kept in the log)"))
        blocking = [p.id for p in self.prompts if p.kind in BLOCKING]
        return self._commit("override", {"moves": [move.to_json()], "override": True, "reason": reason,
                                         "close": blocking}, by, expected_version)

    @_locked
    def end_game(self, *, by: str = "host", expected_version: int) -> list[Event]:
        """End the current game early (it is late, someone leaves): scores as they stand; host only.

        The winners are the engine's own ranking of the current scores (``Game.winners``, tie-breaks
        included). The game then counts as over for the series, the export and BG Stats; ``undo``
        right after takes the end back."""
        self._catch_up()
        self._check_version(expected_version)
        if self.is_over():
            why = "the host ended it already" if self.ended_by_host else "it ended by the rules"
            why_ja = "ホストがすでに終了しました" if self.ended_by_host else "ルールどおりに終わりました"
            raise SessionError(f"the game is already over ({why}): there is nothing to end",
                               f"ゲームはもう終わっています({why_ja})。終了するものはありません")
        return self._commit("end_game", {}, by, expected_version)

    @_locked
    def note(self, data: dict[str, Any], *, by: str = "host") -> None:
        """Add a note to the log (no game state changes; pages showing the table refresh): e.g. that
        a rematch was set up at another table."""
        self._commit("note", dict(data), by, None)

    def next_game(self, *, by: str = "host", expected_version: int | None = None) -> None:
        """Series: start the next game (the start player moves one seat on)."""
        self._catch_up()
        self._check_version(expected_version)
        if not self.is_over():
            raise SessionError(*both("the current game is not over yet"))
        if (self.rounds is not None or self.target is not None) and self.series()["is_over"]:
            raise SessionError(*both("the series is over"))
        self._commit("next_game", {}, by, expected_version)

    def wait_for_change(self, version: int, timeout: float) -> int:
        """Block until the stored version passes ``version`` or ``timeout`` seconds pass; return it."""
        deadline = time.monotonic() + timeout
        while True:
            current = self.store.version(self.id)
            if current > version or time.monotonic() >= deadline:
                if current > self.version:
                    self._catch_up(always=True)
                return current
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))

    # ----------------------------------------------------------------- export
    def _games(self) -> list[tuple[Game, list[dict[str, Any]], bool]]:
        """Every game of the session: (game, its moves, whether the host ended it early)."""
        return [(f["game"], f["moves"], f["ended"] is not None) for f in self._st.finished] + \
            [(self.game, self._st.moves, self.ended_by_host)]

    @_locked
    def export(self) -> dict[str, Any]:
        """The session's games as JSON: settings, every move, scores, winners, series totals."""
        self._catch_up()
        games = []
        for i, (game, moves, ended) in enumerate(self._games()):
            over = ended or game.is_over()
            games.append({"number": i + 1, "finished": over, "ended_by_host": ended,
                          "start_player": game.options.get("start_player", 0),
                          "options": dict(game.options),
                          "moves": [dict(m["move"].to_json(), override=m["override"]) for m in moves],
                          "scores": game.scores(),
                          "winners": game.winners() if over else [],
                          "state": game.snapshot()})
        return {"format": "table-companion-session/1", "id": self.id, "code": self.code,
                "game": self.game_id, "title": self.game.title, "title_ja": self.game.title_ja,
                "players": self.players, "names": self.names, "options": self.options,
                "created": datetime.fromtimestamp(self.created, timezone.utc).isoformat(),
                "version": self.version, "games": games, "series": self.series()}
