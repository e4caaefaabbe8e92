"""The reconciler's pieces: comparing partial observations, pending rulings, the search budget."""
from __future__ import annotations

from companion.engine import Move
from companion.games import new_game
from companion.session.reconcile import compare, differences, explain, matches


def test_partial_observations_compare_only_what_was_seen():
    layout = {"trick": ["S-R5"], "won": [0, 1, 0], "out": []}
    assert matches({"trick": ["S-R5"]}, layout)
    assert matches({"won": [0, "?", 0]}, layout)
    assert matches({"trick": "?"}, layout)
    assert not matches({"trick": ["S-R6"]}, layout)
    assert not matches({"won": [0, 1]}, layout)              # a list is compared whole
    assert not matches({"pile": 3}, layout)                  # a key the layout does not have
    assert differences({"trick": ["S-R6"], "won": [0, 1, 0]}, layout) == ["trick"]


def test_pending_accepts_the_look_before_a_ruling_only():
    before = {"hills": [{"red": ["B-HILLR"], "revealed": False}], "out": []}
    after = {"hills": [{"red": [], "revealed": True}], "out": ["H-RBAN"]}
    seen_face_up = {"hills": [{"red": ["H-RBAN"], "revealed": True}], "out": []}
    assert compare(seen_face_up, after) is None
    assert compare(seen_face_up, after, before, frozenset({"H-RBAN"})) == "pending"
    assert compare(seen_face_up, after, before, frozenset()) is None   # not a ruling's card
    wrong = {"hills": [{"red": ["H-R7"], "revealed": True}], "out": []}
    assert compare(wrong, after, before, frozenset({"H-RBAN"})) is None


def test_search_reports_when_it_stopped_at_its_budget():
    game = new_game("spartacus", 5)
    game.apply(Move.of(0, "play", card="S-R9"))
    obs = {"trick": ["S-R9", "S-B8", "S-G7", "S-Y6", "S-P5"]}
    assert explain(game, obs).sequences[0][-1] == Move.of(4, "play", card="S-P5")
    starved = explain(game, obs, budget=2)
    assert starved.sequences == [] and starved.exhausted


def test_a_taken_terminal_the_camera_cannot_name_is_named_from_the_row():
    import random

    from companion.session.reconcile import why_not
    game = new_game("chains", 2)
    game.apply(game.sample_chance(random.Random(1)))
    first = game.layout()["terminals"][0][0]["card"]
    # a taken terminal lies under its scored set: the camera sees it taken, not which card it is
    obs = {"terminals": [[{"state": "taken"}] + ["?"] * (len(game.layout()["terminals"][0]) - 1), "?"]}
    reason, _, tried = why_not(game, obs, ["Ann", "Ben"])
    assert tried == [Move.of(0, "take_terminal", card=first)]
    assert "None" not in reason and "None" not in reason.ja


def _prussia_two_player_table(seed: int):
    """A 2-player Prussia game as it happens at a real table (``tablesim.scripted``) and the
    still tables a camera that sees no pile, discard or hands reads: (true moves, [(moves made, view)])."""
    import random
    from companion.engine import CHANCE
    from tablesim.scripted import SAME_MOTION, pre_ruling_layouts, table_move
    rng = random.Random(seed)
    ref = new_game("prussia", 2)
    seen = lambda layout: {k: v for k, v in layout.items() if k not in ("pile", "discard", "hands")}
    stills = []
    while not ref.is_over():
        move = table_move(ref, rng)
        before = ref.layout()
        events = ref.apply(move)
        if ("prussia", move.kind) in SAME_MOTION and move.player != CHANCE and ref.is_chance_node():
            continue
        stills += [(len(ref.log), seen(shown)) for shown in pre_ruling_layouts("prussia", before, ref.layout(), events)]
        stills.append((len(ref.log), seen(ref.layout())))
    return list(ref.log), stills


def test_a_card_drawn_before_its_ruling_is_asked_and_the_table_carrying_it_out_settles_it(tmp_path):
    """The case of docs/vision.md (2-player Prussia, seed 1, move 38): the table shows ♦9 lying as
    the drawn card, before the ruling it brings is carried out. "P1 plays ♦9" and "P1 draws, ♦9
    turned up" both explain it, each with that ruling to carry out; the search counted the draw and
    the card it turned over as two steps and applied "plays ♦9" (wrong). Now the session asks, and
    when the table goes on (the ruling carried out, ♣10 turned up) the one choice that explains
    the table with the fewest player moves is taken without a tap."""
    from companion.session import Store, TableSession
    truth, stills = _prussia_two_player_table(1)
    assert [str(m) for m in truth[38:41]] == ["P1 draw", "chance draw card=P-D9", "chance draw card=P-C10"]
    s = TableSession.create(Store(tmp_path / "t.db"), "prussia", 2)
    for move in truth[:38]:
        s.play(move, expected_version=s.version)
    pre, post = [view for made, view in stills if made == 40]
    assert pre["drawn"] == "P-D9" and post["drawn"] is None
    asked = s.observe(pre)
    assert asked.kind == "prompt" and asked.prompt.kind == "choose" and s.game.log == truth[:38]
    choices = [c["moves"] for c in asked.prompt.choices if c["moves"]]
    assert [m.to_json() for m in truth[38:40]] in choices and [Move.of(0, "play", card="P-D9").to_json()] in choices
    assert s.observe(post).kind in ("nothing", "prompt") and s.game.log == truth[:38]   # both still fit
    third = next(view for made, view in stills if made == 41)
    settled = s.observe(third)
    assert settled.kind == "applied" and s.game.log == truth[:41], [str(m) for m in s.game.log[38:]]
    assert not [p for p in s.prompts if p.kind == "choose"]
    # replayed from SQLite: the same game
    assert TableSession.open(s.store, s.id).game.log == truth[:41]


def test_pending_explanations_count_player_moves_not_steps():
    """Two pending explanations at one visible step, one with a draw and the card it turned over:
    both are kept (before, the shorter list of steps won)."""
    truth, stills = _prussia_two_player_table(1)
    game = new_game("prussia", 2)
    for move in truth[:38]:
        game.apply(move)
    pre = next(view for made, view in stills if made == 40)
    found = explain(game, pre)
    assert found.pending and len(found.sequences) == 2 and found.waiting == [True, True]
