"""The rules-engine API that every game implements.

A game is a deterministic state machine (design.md, "Engine conventions"):

* ``current_player()`` is a seat number ``0..players-1``, or ``CHANCE`` when the next step is a
  shuffle or a draw, or ``TERMINAL`` when the game is over;
* ``legal_moves()`` lists what may be done now; ``apply(move)`` does it and returns ``Event`` s;
* chance is explicit: shuffles and draws are ``Move`` s of ``CHANCE`` kept in the log like any other
  move, so a game at a real table can be fed what the camera saw, and a simulation picks them with a
  seeded ``random.Random``;
* the append-only ``log`` of moves is the source of truth: ``undo()`` and ``from_json()`` replay it;
* ``layout()`` is the table as a camera sees it (public, physical positions), the common language of
  the vision pipeline and the table session; ``player_view(p)`` is what seat ``p`` may know.

A concrete game subclasses ``Game`` and implements the ``_``-prefixed hooks plus the queries.
"""
from __future__ import annotations

import copy
import pickle
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Mapping, Sequence

from companion.i18n import Text, player_count

CHANCE = -1
"""``current_player()`` at a chance node: the next move is a shuffle or a draw."""
TERMINAL = -2
"""``current_player()`` once the game is over."""


class Reason(str):
    """Words for people in two languages: the string itself is the English, ``ja`` the Japanese.

    Engines return one from ``explain_illegal`` and raise ``IllegalMove`` / ``GameError`` with one,
    so the two languages of a refusal are written side by side and travel together.
    """

    ja: str

    def __new__(cls, en: str, ja: str) -> "Reason":
        reason = super().__new__(cls, en)
        reason.ja = ja
        return reason


def japanese(text: Any) -> str:
    """The Japanese words a ``Reason`` (or an exception built from one) carries; "" if none."""
    return getattr(text, "ja", "") or ""


class GameError(ValueError):
    """A game could not be created or restored: bad options, player count or saved data.

    ``str(err)`` is the English message; ``ja`` the Japanese one where given (pass a ``Reason``).
    """

    def __init__(self, message: str = "", ja: str = "") -> None:
        super().__init__(str(message))
        self.ja = ja or japanese(message)


class IllegalMove(ValueError):
    """A move the rules forbid; ``reason`` says why in a player's words, ``rule`` cites the rule,
    ``ja`` is the reason in Japanese (taken from ``reason`` when it is a ``Reason``)."""

    def __init__(self, reason: str, rule: str = "", ja: str = "") -> None:
        super().__init__(f"{reason} ({rule})" if rule else str(reason))
        self.reason = str(reason)
        self.rule = rule
        self.ja = ja or japanese(reason)


class FrozenDict(tuple):
    """A dict frozen by ``freeze``: a tuple of sorted (key, value) pairs that ``thaw`` turns back
    into a dict (so event data such as a score breakdown keeps its objects in JSON)."""

    __slots__ = ()


_SCALARS = frozenset((str, int, bool, float, type(None)))


def freeze(value: Any) -> Any:
    """Turn JSON-like data into hashable values: lists become tuples, dicts sorted item tuples."""
    if type(value) in _SCALARS:   # the common case first: every move names a card or a slot
        return value
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return FrozenDict(sorted((str(k), freeze(v)) for k, v in value.items()))
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"not a JSON value: {value!r}")


def thaw(value: Any) -> Any:
    """The inverse of ``freeze`` for move and event parameters: tuples become lists, frozen
    dicts dicts."""
    if isinstance(value, FrozenDict):
        return {k: thaw(v) for k, v in value}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


def seat_words(player: int) -> tuple[str, str]:
    """How a refusal names a move's seat in English and Japanese: "player 2", or chance's."""
    if player == CHANCE:
        return "chance (a shuffle or draw)", "卓(シャッフル・ドロー)"
    return f"player {player + 1}", f"プレイヤー{player + 1}"


def with_aside(name: str, en: str, ja: str) -> Reason:
    """A seat's name with a word about it in brackets, "Ann (red)" / "Ann(赤)": a name that ends in
    brackets of its own takes the word inside them, "Companion 2 (good, red)" / "コンパニオン2(中級、赤)"
    (not "Companion 2 (good) (red)")."""
    if name.endswith(")") and "(" in name:
        return Reason(f"{name[:-1]}, {en})", f"{name[:-1]}、{ja})")
    return Reason(f"{name} ({en})", f"{name}({ja})")


def in_both(words: Callable[[Sequence[str]], Reason], names: Sequence[str], names_ja: Sequence[str]) -> Reason:
    """``words`` (a description for some seat names) with ``names`` in its English and ``names_ja``
    in its Japanese (a seat the app named is called in each language's words)."""
    en = words(names)
    return en if list(names) == list(names_ja) else Reason(str(en), words(names_ja).ja)


def third_person(phrase: str) -> str:
    """A verb phrase with its first word in the third person: "take red 5" → "takes red 5"."""
    verb, space, rest = phrase.partition(" ")
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        verb += "es"
    elif verb.endswith("y") and verb[-2:-1] not in ("a", "e", "o", "u", ""):
        verb = verb[:-1] + "ies"
    elif verb:
        verb += "s"
    return verb + space + rest


def capitalised(text: str) -> str:
    """``text`` with its first letter upper case (the rest untouched: "red 7" → "Red 7")."""
    return text[:1].upper() + text[1:]


def _param_words(value: Any) -> tuple[str, str]:
    """A move parameter in words for the generic description: card ids by their catalogue names,
    long lists summarised (never a wall of ids)."""
    from companion import catalogue   # the catalogue is data about cards; imported late, only here
    value = thaw(value)
    if isinstance(value, list):
        if len(value) > 4:
            return f"{len(value)} cards", f"{len(value)}枚"
        parts = [_param_words(v) for v in value]
        return ", ".join(p[0] for p in parts), "・".join(p[1] for p in parts)
    if isinstance(value, str):
        try:
            card = catalogue.card(value)
            return card.name, card.ja
        except (KeyError, ValueError):
            pass
    return str(value), str(value)


def _params(params: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    if len(params) < 2:   # most moves name one thing: nothing to sort (playouts build many)
        return tuple((k, freeze(v)) for k, v in params.items())
    return tuple(sorted((k, freeze(v)) for k, v in params.items()))


@dataclass(frozen=True)
class Move:
    """One action: who (a seat, or ``CHANCE``), what (``kind``, in the rules' words) and details.

    Parameters are read as attributes: ``Move.of(0, "take", card="W-R5").card == "W-R5"``.
    """

    player: int
    kind: str
    params: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, player: int, kind: str, **params: Any) -> "Move":
        """Build a move from keyword parameters (lists are stored as tuples)."""
        return cls(player, kind, _params(params))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy and pickle probe special names before the fields exist
            raise AttributeError(name)
        for key, value in object.__getattribute__(self, "params"):
            if key == name:
                return value
        raise AttributeError(f"move {object.__getattribute__(self, 'kind')!r} has no parameter {name!r}")

    def get(self, name: str, default: Any = None) -> Any:
        """A parameter's value, or ``default`` when the move has no such parameter."""
        return dict(self.params).get(name, default)

    def without(self, name: str) -> "Move":
        """The same move without parameter ``name`` (a move worded without its hidden card)."""
        return Move(self.player, self.kind, tuple(kv for kv in self.params if kv[0] != name))

    def to_json(self) -> dict[str, Any]:
        """The move as a JSON object: ``{"player": 0, "kind": "take", ...params}``."""
        return {"player": self.player, "kind": self.kind, **{k: thaw(v) for k, v in self.params}}

    @classmethod
    def from_json(cls, data: Any) -> "Move":
        """Read a move written by ``to_json``; malformed data raises ``GameError``."""
        if not isinstance(data, dict):
            raise GameError(f"a move must be a JSON object, got {type(data).__name__}",
                            f"手はJSONオブジェクトにしてください({type(data).__name__}が指定されました)")
        data = dict(data)
        player, kind = data.pop("player", None), data.pop("kind", None)
        if not isinstance(player, int) or isinstance(player, bool):
            raise GameError(f"a move needs an integer 'player', got {player!r}",
                            f"手には整数の 'player' が必要です({player!r}が指定されました)")
        if not isinstance(kind, str) or not kind:
            raise GameError(f"a move needs a non-empty 'kind', got {kind!r}",
                            f"手には空でない 'kind' が必要です({kind!r}が指定されました)")
        try:
            return cls.of(player, kind, **data)
        except TypeError as err:
            raise GameError(f"bad move parameter: {err}", f"手のパラメーターが正しくありません: {err}") from None

    def __str__(self) -> str:
        who = "chance" if self.player == CHANCE else f"P{self.player + 1}"
        details = " ".join(f"{k}={thaw(v)}" for k, v in self.params)
        return f"{who} {self.kind} {details}".rstrip()


@dataclass(frozen=True)
class Event:
    """Something the table should hear about: a colour scored, a hill revealed, a war resolved.

    ``text`` is an English sentence for people, ``ja`` the Japanese one, ``data`` the facts.
    """

    kind: str
    text: str
    data: tuple[tuple[str, Any], ...] = ()
    ja: str = ""

    @classmethod
    def of(cls, kind: str, text: str, ja: str = "", **data: Any) -> "Event":
        """Build an event from keyword facts."""
        return cls(kind, text, _params(data), ja)

    def get(self, name: str, default: Any = None) -> Any:
        """A fact of the event, or ``default``."""
        return dict(self.data).get(name, default)

    def to_json(self) -> dict[str, Any]:
        """The event as a JSON object."""
        return {"kind": self.kind, "text": self.text, "ja": self.ja,
                "data": {k: thaw(v) for k, v in self.data}}

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Option:
    """A variant switch or setting of a game, validated when the game is created."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    requires: tuple[str, ...] = ()
    """Other boolean options that must be on for this one to be switched on."""
    minimum: int | None = None

    def parse(self, text: str) -> Any:
        """Convert a command-line value (``true``, ``3``, ``chain``) to this option's type."""
        if isinstance(self.default, bool):
            lowered = text.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise GameError(*self._takes("true or false", "true か false", text))
        if isinstance(self.default, int) or (self.default is None and self.minimum is not None):
            try:
                return int(text)
            except ValueError:
                raise GameError(*self._takes("a whole number", "整数", text)) from None
        return text

    def validate(self, value: Any) -> Any:
        """Check a value's type and range; return it."""
        if isinstance(self.default, bool):
            if not isinstance(value, bool):
                raise GameError(*self._takes("true or false", "true か false", value))
        elif isinstance(self.default, int) or self.minimum is not None:
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise GameError(*self._takes("a whole number", "整数", value))
            if value is not None and self.minimum is not None and value < self.minimum:
                raise GameError(f"option {self.name} must be at least {self.minimum}, got {value}",
                                f"オプション{self.name}は{self.minimum}以上にしてください"
                                f"({value}が指定されました)")
        if self.choices and value not in self.choices:
            listed = ', '.join(map(str, self.choices))
            raise GameError(f"option {self.name} must be one of {listed}, got {value!r}",
                            f"オプション{self.name}は {listed} のどれかにしてください({value!r}が指定されました)")
        return value

    def _takes(self, what: str, what_ja: str, got: Any) -> tuple[str, str]:
        """The English and Japanese words for a value of the wrong type."""
        return (f"option {self.name} takes {what}, got {got!r}",
                f"オプション{self.name}には{what_ja}を指定してください({got!r}が指定されました)")

    def to_json(self) -> dict[str, Any]:
        """The option as listed by ``companion games --json``."""
        out: dict[str, Any] = {"name": self.name, "default": self.default, "help": self.help}
        if self.choices:
            out["choices"] = list(self.choices)
        if self.requires:
            out["requires"] = list(self.requires)
        return out


class Game(ABC):
    """The state of one game; subclasses implement one game's rules."""

    id: ClassVar[str]
    title: ClassVar[str]
    title_ja: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options_spec: ClassVar[tuple[Option, ...]] = ()
    rules_file: ClassVar[str] = ""
    """The name of the rule specification this engine implements, for citations (a player reads
    the rules in ``docs/<game>.md``; ``webui.rules.rule_link`` turns a citation into a link there)."""
    quiet: bool = False
    """Set on a throwaway copy (the strong player's playouts): ``_apply`` may then return no events
    instead of writing them (a game may honour it where its words cost most of a move)."""

    @classmethod
    def player_count(cls) -> Text:
        """How many play, in English and Japanese: "2 players" / 「2人」, "2–5 players" / 「2〜5人」
        (``companion.i18n.player_count``, as the pages say it)."""
        return Text(*(player_count(cls.min_players, cls.max_players, lang) for lang in ("en", "ja")))

    def __init__(self, players: int, options: Mapping[str, Any] | None = None) -> None:
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            count, count_ja = self.player_count()
            raise GameError(f"{self.title} is for {count}, got {players}",
                            f"{self.title_ja}は{count_ja}用です({players!r}人が指定されました)")
        self.players = players
        self.options = self.validate_options(options or {}, players)
        self.log: list[Move] = []
        self.events: list[Event] = []
        self._setup()

    # ----------------------------------------------------------------- options
    @classmethod
    def option(cls, name: str) -> Option:
        """The option called ``name``; unknown names raise ``GameError`` listing the known ones."""
        for opt in cls.options_spec:
            if opt.name == name:
                return opt
        known = ", ".join(o.name for o in cls.options_spec)
        raise GameError(f"{cls.title} has no option {name!r} (options: {known or 'none'})",
                        f"{cls.title_ja}にオプション{name!r}はありません(オプション: {known or 'なし'})")

    @classmethod
    def validate_options(cls, options: Mapping[str, Any], players: int) -> dict[str, Any]:
        """All options with defaults filled in, checked for type, range and dependencies."""
        values = {opt.name: opt.default for opt in cls.options_spec}
        for name, value in options.items():
            opt = cls.option(name)
            values[name] = opt.validate(value)
        for opt in cls.options_spec:
            value = values[opt.name]
            switched_on = value is True or (not isinstance(value, bool) and value != opt.default)
            if switched_on:
                for needed in opt.requires:
                    if not values[needed]:
                        raise GameError(f"option {opt.name} needs option {needed}",
                                        f"オプション{opt.name}にはオプション{needed}が必要です")
        start = values.get("start_player")
        if start is not None and not 0 <= start < players:
            raise GameError(f"option start_player must be a seat from 0 to {players - 1} for "
                            f"{players} players, got {start}",
                            f"{players}人ではオプションstart_player(スタートプレイヤー)は席0〜{players - 1}"
                            f"で指定してください({start}が指定されました)")
        cls._check_options(values, players)
        return values

    @classmethod
    def _check_options(cls, options: dict[str, Any], players: int) -> None:
        """Game-specific checks of option combinations; raise ``GameError``."""

    @classmethod
    def parse_options(cls, pairs: Iterable[str]) -> dict[str, Any]:
        """Parse ``NAME=VALUE`` strings from the command line."""
        out: dict[str, Any] = {}
        for pair in pairs:
            name, sep, text = pair.partition("=")
            if not sep:
                raise GameError(f"options are written NAME=VALUE, got {pair!r}",
                                f"オプションは 名前=値 の形で書いてください({pair!r}が指定されました)")
            out[name.strip()] = cls.option(name.strip()).parse(text)
        return out

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """The game's id, names, player counts and options, for ``companion games``."""
        return {"id": cls.id, "title": cls.title, "title_ja": cls.title_ja,
                "min_players": cls.min_players, "max_players": cls.max_players,
                "options": [o.to_json() for o in cls.options_spec], "implemented": True}

    # ----------------------------------------------------------------- the rules
    @abstractmethod
    def _setup(self) -> None:
        """Set the state before the first move (shuffles come later, as chance moves)."""

    @abstractmethod
    def current_player(self) -> int:
        """The seat to move, ``CHANCE`` at a shuffle or draw, ``TERMINAL`` when over."""

    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """Every legal move now; at a chance node every outcome (may be empty if too many)."""

    @abstractmethod
    def _apply(self, move: Move) -> list[Event]:
        """Change the state by a move already known to be legal; return its events."""

    @abstractmethod
    def scores(self) -> list[int]:
        """Each seat's score so far (final once ``is_over()``)."""

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-able data (equal snapshots mean equal states)."""

    @abstractmethod
    def layout(self) -> dict[str, Any]:
        """The table as a camera sees it: public cards and their places, JSON-able."""

    def player_view(self, player: int) -> dict[str, Any]:
        """What seat ``player`` may know; by default the layout plus public scores."""
        return {"layout": self.layout(), "scores": self.scores(), "current_player": self.current_player()}

    def check(self, move: Move) -> None:
        """Raise ``IllegalMove`` with the rule's reason unless ``move`` is legal now."""
        if self.is_over():
            raise IllegalMove("The game is over.", "game over", "ゲームは終了しています。")
        if move not in self.legal_moves():
            raise IllegalMove(self.explain_illegal(move), self.rules_file)

    def explain_illegal(self, move: Move) -> str:
        """Why ``move`` is not legal now, in a player's words: a ``Reason`` (games refine this)."""
        turn = self.current_player()
        if move.player != turn:
            who, who_ja = seat_words(move.player)
            if turn == CHANCE:
                return Reason(f"It is not {who}'s turn: it is a shuffle or draw's.",
                              f"{who_ja}の手番ではありません。シャッフルかドローの番です。")
            return Reason(f"It is not {who}'s turn: it is player {turn + 1}'s.",
                          f"{who_ja}の手番ではありません。プレイヤー{turn + 1}の手番です。")
        words = self.describe_move(move)
        return Reason(f"“{words}” is not a legal move now.", f"今その手({words.ja})は指せません。")

    # ----------------------------------------------------------------- moves in words
    def describe_move(self, move: Move, names: Sequence[str] | None = None, *, short: bool = False) -> Reason:
        """A move in a player's words, English and Japanese: "Ann takes red 5 (Latins)" /
        "Annが赤5(ラテン人)を取る"; a chance move reads as what the table did ("Hill 3 turned face
        up: …"). ``short`` is a button's label: no seat, "Take red 5 (Latins)" / "赤5(ラテン人)を取る".

        Games word their moves in ``_move_words``; seats are named by ``seat_label``.
        """
        if short:
            words = self._phrase(move, short)
            return Reason(capitalised(words), words.ja)
        words = self._sentence(move, names)
        return Reason(capitalised(words), words.ja) if move.player < 0 else words

    def _sentence(self, move: Move, names: Sequence[str] | None) -> Reason:
        """``describe_move``'s words before the capital: a chance move as the game words it for
        these ``names`` ("a 4 turned up from Chie's deck"), a seat's move with its seat."""
        if move.player < 0:
            return self._chance_words(move, names) or self._phrase(move, False)
        words = self._phrase(move, False)
        who = self.seat_label(move.player, names)
        return Reason(f"{who} {third_person(words)}", f"{who.ja}が{words.ja}")

    def _chance_words(self, move: Move, names: Sequence[str] | None) -> Reason | None:
        """A chance move in words that name the seats (games whose chance moves concern a seat
        override this); None: the game's ``_move_words``."""
        return None

    def describe_moves(self, moves: Sequence[Move], names: Sequence[str] | None = None,
                       most: int = 4) -> Reason:
        """Several moves from this state in one sentence: "Ann takes red 5 (Latins), then keeps red 5
        (Latins)" (each move worded in the state it is played from; past ``most`` moves, a count)."""
        game, parts, parts_ja, last, playable = self.clone(), [], [], None, True
        for move in moves[:most]:
            if parts and move.player == last and move.player >= 0:   # same seat: no need to name it again
                plain = game._phrase(move, False)
                words = Reason(third_person(plain), plain.ja)
            elif parts:   # mid-sentence: "then a 4 turned up", no capital
                words = game._sentence(move, names)
            else:
                words = game.describe_move(move, names)
            parts.append(str(words))
            parts_ja.append(words.ja)
            last = move.player
            try:
                if playable:
                    game.apply(move)
            except IllegalMove:
                playable = False   # the rest is worded in the last state the moves reach
        en, ja = ", then ".join(parts), "、続いて".join(parts_ja)
        if len(moves) > most:
            more = len(moves) - most
            en += f", and {more} more move{'s' if more > 1 else ''}"
            ja += f"、ほか{more}手"
        return Reason(en, ja)

    def verb_phrase(self, move: Move) -> Reason:
        """A seat's move as a verb phrase with no seat ("place blue 7 face down at hill 3" / "青7を丘3に
        伏せて置く"): a sentence about someone who is not a seat number (the companion) starts with it."""
        return self._phrase(move, False)

    def _phrase(self, move: Move, short: bool) -> Reason:
        """The game's verb phrase for ``move`` (``_move_words``), or the generic words."""
        try:
            words = self._move_words(move, short)
        except (KeyError, ValueError, TypeError, AttributeError, IndexError):
            words = None   # a move this state cannot read (an illegal one being refused): generic words
        return words if words is not None else self._generic_words(move)

    def seat_label(self, seat: int, names: Sequence[str] | None = None) -> Reason:
        """How a description names a seat: the player's name when given, else "Player 2" (games
        may add their colour)."""
        if names and 0 <= seat < len(names) and names[seat]:
            return Reason(str(names[seat]), str(names[seat]))
        return Reason(f"Player {seat + 1}", f"プレイヤー{seat + 1}")

    def _move_words(self, move: Move, short: bool) -> Reason | None:
        """A move as a verb phrase ("take red 5" / "赤5を取る"; a chance move: what happened, "hill 3
        turned face up"), or None for the generic words; ``short`` asks for a button's fewest words."""
        return None

    @staticmethod
    def _generic_words(move: Move) -> Reason:
        """Words for a move a game does not word itself: its kind and parameters, cards by name."""
        parts = [(k, *_param_words(v)) for k, v in move.params]
        en = f"“{move.kind}”" + (" (" + "; ".join(f"{k}: {v}" for k, v, _ in parts) + ")" if parts else "")
        ja = f"「{move.kind}」" + ("(" + "、".join(f"{k}: {v}" for k, _, v in parts) + ")" if parts else "")
        if move.player < 0:
            return Reason(f"the table did {en}", f"卓で{ja}の手")
        return Reason(f"make the move {en}", f"{ja}の手を指す")

    @classmethod
    def refusal(cls, en: str, ja: str, head: str = "", head_ja: str = "") -> Reason:
        """A ``Reason`` headed by the game's name (or ``head``): ``Spartacus: …`` / ``スパルタクス: …``."""
        return Reason(f"{head or cls.title}: {en}", f"{head_ja or cls.title_ja}: {ja}")

    def is_chance_node(self) -> bool:
        """True when the next move is chance's (a shuffle or a draw)."""
        return self.current_player() == CHANCE

    def is_over(self) -> bool:
        """True once the game has ended."""
        return self.current_player() == TERMINAL

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        """The outcomes of the chance node with their probabilities (uniform by default)."""
        moves = self.legal_moves()
        return [(m, 1 / len(moves)) for m in moves]

    def chance_stream(self) -> int:
        """Which independent stream of chance this chance node draws from (0 unless a game says
        otherwise): a game whose seats draw from their own decks names the deck, so a bench that
        seeds each stream alone deals every seat the same cards whatever the players chose."""
        return 0

    def sample_chance(self, rng: random.Random) -> Move:
        """Pick the chance node's outcome with ``rng`` (override for shuffles)."""
        outcomes = self.chance_outcomes()
        return rng.choices([m for m, _ in outcomes], weights=[p for _, p in outcomes])[0]

    def winners(self) -> list[int]:
        """The seats with the best score (several on a shared win)."""
        scores = self.scores()
        best = max(scores)
        return [p for p, s in enumerate(scores) if s == best]

    # ----------------------------------------------------------------- log, undo, JSON
    def apply(self, move: Move) -> list[Event]:
        """Check and play ``move``; it joins the log; return the events it caused."""
        self.check(move)
        events = self._apply(move)
        self.log.append(move)
        self.events.extend(events)
        return events

    def push(self, move: Move) -> list[Event]:
        """Alias of ``apply`` (python-chess's word)."""
        return self.apply(move)

    @classmethod
    def replay(cls, players: int, options: Mapping[str, Any] | None, moves: Sequence[Move]) -> "Game":
        """A new game with ``moves`` applied in order (each one checked)."""
        game = cls(players, options)
        for i, move in enumerate(moves):
            try:
                game.apply(move)
            except IllegalMove as err:
                raise GameError(f"move {i + 1} ({move}) cannot be replayed: {err}",
                                f"{i + 1}手目({move})を再現できません: {err.ja or err}") from None
        return game

    def undo(self) -> Move:
        """Take back the last move by replaying the log without it; return that move."""
        if not self.log:
            raise IllegalMove("There is no move to undo.", "undo", "取り消せる手がありません。")
        last = self.log[-1]
        fresh = type(self).replay(self.players, self.options, self.log[:-1])
        self.__dict__.update(fresh.__dict__)
        return last

    pop = undo

    def clone(self) -> "Game":
        """An independent copy of this state. The move log's and the events' items (immutable Moves
        and Events) are shared, not copied: copying a long game's history was most of the cost of a
        deep copy; pickling copies the rest two to five times faster than ``copy.deepcopy`` (the
        fallback), which matters where copies are many (the strong player's playouts, the camera's
        search for the moves between two views)."""
        log, events = self.log, self.events
        self.log, self.events = [], []
        try:
            try:
                twin = pickle.loads(pickle.dumps(self, pickle.HIGHEST_PROTOCOL))
            except (pickle.PicklingError, TypeError, AttributeError):
                twin = copy.deepcopy(self)
        finally:
            self.log, self.events = log, events
        twin.log, twin.events = list(log), list(events)
        return twin

    def to_json(self) -> dict[str, Any]:
        """The game as JSON: id, players, options, the move log and a snapshot of the state."""
        return {"game": self.id, "players": self.players, "options": dict(self.options),
                "moves": [m.to_json() for m in self.log], "state": self.snapshot()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Game":
        """Restore a game by replaying its log; the stored snapshot must match exactly."""
        if not isinstance(data, Mapping):
            raise GameError("a saved game must be a JSON object")
        if data.get("game") != cls.id:
            raise GameError(f"this is a saved {data.get('game')!r} game, not {cls.id!r}")
        try:
            moves = [Move.from_json(m) for m in data["moves"]]
            game = cls.replay(data["players"], data.get("options"), moves)
        except KeyError as err:
            raise GameError(f"a saved game needs the field {err}") from None
        if "state" in data and freeze(data["state"]) != freeze(game.snapshot()):
            raise GameError("the saved state does not match a replay of its moves (file damaged?)")
        return game

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Game) and other.id == self.id
                and freeze(self.snapshot()) == freeze(other.snapshot()))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} players={self.players} moves={len(self.log)}>"


@dataclass
class Simulation:
    """The record of one simulated game: the final state and what happened, move by move."""

    game: Game
    seed: int
    turns: list[tuple[Move, list[Event]]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The record for ``companion simulate --json``."""
        return {"game": self.game.id, "players": self.game.players, "seed": self.seed,
                "options": dict(self.game.options),
                "moves": [m.to_json() for m, _ in self.turns],
                "events": [dict(e.to_json(), move=i) for i, (_, evs) in enumerate(self.turns)
                           for e in evs],
                "scores": self.game.scores(), "winner": self.game.winners(),
                "state": self.game.snapshot()}


def simulate(game: Game, seed: int, max_moves: int = 100_000) -> Simulation:
    """Play ``game`` to its end with uniformly random legal moves and chance from ``seed``."""
    rng = random.Random(seed)
    record = Simulation(game, seed)
    while not game.is_over():
        if len(record.turns) >= max_moves:
            raise RuntimeError(f"{game.title} did not end within {max_moves} moves")
        if game.is_chance_node():
            move = game.sample_chance(rng)
        else:
            moves = game.legal_moves()
            if not moves:
                raise RuntimeError(f"{game.title}: player {game.current_player() + 1} has no legal move")
            move = rng.choice(moves)
        record.turns.append((move, game.apply(move)))
    return record
