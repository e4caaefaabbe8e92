"""Issue 20, point 5: an import's preview grows with the names it holds, not with their product
(Flask's test client on real SQLite files, a real BG Stats export of our own). The names are matched
through an index that gives the suggestions difflib gave; the page lists every known player once
(a shared <datalist>) and only a few suggestions in each new player's picker."""
from __future__ import annotations

import difflib
import random
import re

import pytest

from benchmarks.history import names_to_import, person_names, preview
from companion.history.bgstats import SUGGESTIONS, KnownNames, looks_like


def _difflib_looks_like(name: str, known: list[str]) -> str | None:
    """The matching as it was before the index (every known name compared with difflib): the oracle."""
    folded = {k.casefold(): k for k in known}
    key = name.casefold().strip()
    if key in folded:
        return None
    first = key.replace(".", " ").split()[0] if key.split() else key
    if first in folded and first != key:
        return folded[first]
    close = difflib.get_close_matches(key, list(folded), n=1, cutoff=0.8)
    if close:
        return folded[close[0]]
    prefix = [k for k in folded if len(k) >= 3 and key.startswith(k)]
    return folded[max(prefix, key=len)] if prefix else None


def _typo(name: str, rng: random.Random) -> str:
    """``name`` as a hand at a table mistypes it: a letter dropped, doubled, swapped or wrong, a
    surname shortened to an initial, another case."""
    i = rng.randrange(1, len(name) - 1)
    kind = rng.randrange(6)
    if kind == 0:
        return name[:i] + name[i + 1:]
    if kind == 1:
        return name[:i] + name[i] + name[i:]
    if kind == 2:
        return name[:i - 1] + name[i] + name[i - 1] + name[i + 1:]
    if kind == 3:
        return name[:i] + rng.choice("aeiouknst") + name[i + 1:]
    if kind == 4:
        return name.split()[0] + " " + name.split()[-1][0] + "."
    return name.upper()


def test_the_index_suggests_what_difflib_suggested():
    rng = random.Random(5)
    known = person_names(400, seed=11) + ["Ann", "Ben", "Chie", "花子", "Jo"]
    cases = ["Chie S.", "Benjamin", "ann", "Ann S", "Bem", "花子さん", "Jo", "Joe", "Zed", ""]
    cases += [_typo(rng.choice(known[:400]), rng) for _ in range(600)]
    cases += person_names(200, seed=12)                # new people, most like nobody
    index = KnownNames(known)
    got = [index.looks_like(name) for name in cases]
    assert got == [_difflib_looks_like(name, known) for name in cases]
    assert sum(g is not None for g in got) > 350        # the typos are found, not just agreed on
    assert looks_like("Chie S.", ["Ann", "Chie"]) == "Chie" and looks_like("Benjamin", ["Ben"]) == "Ben"
    # the picker's suggestions: the match first, then close names, never the name itself
    offered = index.suggestions("Chie S.", index.looks_like("Chie S."))
    assert offered[0] == "Chie" and len(offered) <= SUGGESTIONS and "Chie S." not in offered


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The preview of a small and a doubled import (new people, known players), with its new names."""
    out = {}
    for new, known in ((150, 170), (300, 340)):
        client, csrf, text, names = names_to_import(tmp_path_factory.mktemp(f"n{new}"), new, known)
        page = preview(client, csrf, text)
        assert page.status_code == 200
        out[new] = (page.get_data(as_text=True), names, known)
    return out


def test_the_preview_grows_linearly_and_lists_every_known_player_once(pages):
    for html, names, known in pages.values():
        datalist = re.search(r'<datalist id="known-players">(.*?)</datalist>', html, re.S).group(1)
        assert datalist.count("<option") == known                  # every known player, once
        pickers = re.findall(r'<select name="merge\d+".*?</select>', html, re.S)
        assert len(pickers) == len(names)
        assert max(p.count("<option") for p in pickers) <= 1 + SUGGESTIONS
        assert html.count('list="known-players"') == len(names)    # anyone else is typed
    small, large = pages[150][0], pages[300][0]
    # twice the names, twice the page: before, each picker listed every known player (4x here;
    # 1,500 x 1,713 made 2.6 million options)
    assert len(large) < 2.3 * len(small)
    assert large.count("<option") < 2.3 * small.count("<option")


def test_a_typo_of_a_known_player_is_offered_first_in_its_picker(tmp_path):
    client, csrf, text, names = names_to_import(tmp_path, 20, 40)
    known = [n for n in person_names(60, seed=7) if n not in names]
    # one of the file's people is a known player with a letter dropped
    typo = known[3][:-1]
    text = text.replace(f'"{names[0]}"', f'"{typo}"')
    html = preview(client, csrf, text).get_data(as_text=True)
    row = re.search(rf'<tr data-ref="\d+"><td class="who">{re.escape(typo)} .*?</tr>', html, re.S).group(0)
    assert f'<option value="{known[3]}" data-looks-like="1">= {known[3]}</option>' in row
    assert f"looks like <b>{known[3]}</b>" in row


def test_another_known_player_typed_is_merged_and_an_unknown_one_refused(tmp_path):
    client, csrf, text, names = names_to_import(tmp_path, 10, 20)
    known = [n for n in person_names(30, seed=7) if n not in names]
    html = preview(client, csrf, text).get_data(as_text=True)
    pending = re.search(r'name="token" value="([^"]+)"', html).group(1)
    ref = re.search(rf'<tr data-ref="(\d+)"><td class="who">{re.escape(names[0])} ', html).group(1)
    store = client.application.extensions["tables"].store
    from companion.history import query
    before = len(query.plays(store))
    r = client.post("/history/import?lang=ja", data={"csrf": csrf, "token": pending, f"other{ref}": "Nobody Here"})
    assert r.status_code == 400 and "Nobody Here" in r.get_data(as_text=True)
    assert len(query.plays(store)) == before                       # nothing written
    r = client.post("/history/import?lang=en", data={"csrf": csrf, "token": pending,
                                                      f"merge{ref}": "", f"other{ref}": known[5].upper()})
    assert r.status_code == 303
    assert names[0] not in query.known_players(store) and known[5] in query.known_players(store)


def test_a_familys_few_known_players_are_all_in_each_picker(tmp_path):
    client, csrf, text, names = names_to_import(tmp_path, 4, 6)
    html = preview(client, csrf, text).get_data(as_text=True)
    pickers = re.findall(r'<select name="merge\d+".*?</select>', html, re.S)
    assert len(pickers) == 4 and all(p.count("<option") == 1 + 6 for p in pickers)
    assert "known-players" not in html                              # nothing to type: all are listed
