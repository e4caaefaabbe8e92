"""The catalogue of the web pages and the command line: every message the code marks has Japanese,
nothing in the catalogue is left over, placeholders agree, and no Japanese hides in the web or
command-line code outside the catalogue."""
from __future__ import annotations

import ast
import re
import string
from functools import lru_cache
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from companion.i18n import EXTRACT_KEYWORDS

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "companion" / "locale" / "ja" / "LC_MESSAGES" / "messages.po"
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9faf]")


@lru_cache(maxsize=1)
def extracted() -> dict[tuple[str | None, object], list[str]]:
    """(context, msgid) -> where the code uses it, as ``pybabel extract -F babel.cfg`` finds them."""
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[tuple[str | None, object], list[str]] = {}
    for filename, lineno, message, _, context in extract_from_dir(str(ROOT), method_map, options_map,
                                                                  keywords=EXTRACT_KEYWORDS):
        key = message if isinstance(message, str) else tuple(message)
        found.setdefault((context, key), []).append(f"{filename}:{lineno}")
    return found


@lru_cache(maxsize=1)
def catalogue():
    with PO.open("rb") as po:
        return read_po(po, locale="ja")


def _entries():
    return [m for m in catalogue() if m.id]


def fields(text: str) -> set[str]:
    """The ``{placeholders}`` of a brace-format text (names with conversion and spec; braces around
    anything but a name are literal, ``{"version": N}`` in a message about JSON) and the ``%(name)s``
    and ``%s`` of argparse's words."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        parsed = []
    braces = {f"{name}!{conv}:{spec}" for _, name, spec, conv in parsed
              if name is not None and re.fullmatch(r"[A-Za-z_]\w*", name)}
    return braces | set(re.findall(r"%(?:\(\w+\))?[sdr]", text))


def test_every_message_in_the_code_has_japanese():
    """A msgid the code marks (t, both, N_ ...) and the catalogue lacks, or holds without Japanese,
    would show English on a Japanese page."""
    have = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)): m for m in _entries()}
    missing = [f"{where[0]}: {msgid!r}" for (ctx, msgid), where in extracted().items()
               if (ctx, msgid) not in have or not all(have[(ctx, msgid)].string if isinstance(
                   have[(ctx, msgid)].string, tuple) else [have[(ctx, msgid)].string])]
    assert not missing, ("add these to companion/locale/ja/LC_MESSAGES/messages.po (docs/webui.md, "
                         "Translations):\n" + "\n".join(missing))
    assert len(have) > 400   # the catalogue is the page's words, not a stub


def test_the_catalogue_holds_nothing_stale_or_fuzzy():
    """Every entry is used by the code, none is fuzzy (gettext would ignore it) or obsolete (#~)."""
    used = extracted()
    stale = [m.id for m in _entries() if (m.context, m.id if isinstance(m.id, str) else tuple(m.id)) not in used]
    assert not stale, f"entries no code uses (run pybabel update, or delete them): {stale}"
    fuzzy = [m.id for m in _entries() if m.fuzzy]
    assert not fuzzy, f"fuzzy entries (check the Japanese, then drop the fuzzy flag): {fuzzy}"
    assert not catalogue().obsolete, f"obsolete entries: {list(catalogue().obsolete)}"


def test_placeholders_agree_between_english_and_japanese():
    """``{name}`` in the English must be in the Japanese and nothing else: a placeholder lost or
    misspelt would drop a value or raise KeyError on the Japanese page."""
    wrong = []
    for m in _entries():
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        strs = [m.string] if isinstance(m.string, str) else list(m.string)
        want = fields(ids[0]) | set().union(*(fields(i) for i in ids[1:]))
        for s in strs:
            if fields(s) != want:
                wrong.append((m.id, s))
    assert not wrong, wrong


def test_the_catalogue_fills_in_as_the_code_does():
    """The runtime reads the .po (Babel, compiled in memory): Japanese with values filled, English as
    the msgid, plurals by count, a context apart, a value given in both languages picked per language."""
    from webui.core.i18n import Text, both, nt, pt, t
    assert t("Players", "ja") == "人数" and pt("history", "Players", "ja") == "プレイヤー"
    assert t("Players", "en") == pt("history", "Players", "en") == "Players"
    said = both("No table has the code {code!r}. Check the host screen.", code="K7Q2")
    assert said.en == "No table has the code 'K7Q2'. Check the host screen."
    assert said.ja == "コード'K7Q2'のテーブルはありません。ホスト画面を確かめてください。"
    assert nt("{n} win", "{n} wins", 1, "en", n=1) == "1 win" and nt("{n} win", "{n} wins", 3, "en", n=3) == "3 wins"
    assert nt("{n} win", "{n} wins", 3, "ja", n=3) == "3勝"
    title = Text("Hills", "丘")
    assert both("{title} is for {count}, got {players}.", title=title, count=Text("2–3 players", "2〜3人"),
                players=5) == ("Hills is for 2–3 players, got 5.", "丘は2〜3人用です(5人が指定されました)。")


def test_no_japanese_in_the_web_and_cli_code_outside_the_catalogue():
    """Japanese words belong in the catalogue, so a translator finds them all (comments and
    docstrings may quote Japanese; the rules page reads the docs' Japanese headings)."""
    allowed = {"webui/rules/rules.py": {"ルール", "裁定", "オプション"},
               "webui/companion/routes.py": {"テーブルで"}}   # docs/players.md's own heading
    found = []
    cli = [ROOT / name for name in ("companion/cli.py", "companion/session/cli.py", "companion/history/cli.py",
                                    "companion/advise.py", "printables/cli.py", "vision/cli.py")]
    for path in sorted((ROOT / "webui").rglob("*.py")) + cli:
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text())
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                      and n.body and isinstance(n.body[0], ast.Expr)}
        docstrings |= {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)
                       and isinstance(n.value, ast.Constant)}   # attribute docstrings
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                    and JAPANESE.search(node.value) and node.value not in allowed.get(rel, ())):
                found.append(f"{rel}:{node.lineno} {node.value[:40]!r}")
    comments = {".html": r"\{#.*?#\}|<!--.*?-->", ".js": r"/\*.*?\*/|//[^\n]*", ".css": r"/\*.*?\*/"}
    for path in sorted((ROOT / "webui").rglob("*")):
        if path.suffix in comments:
            text = re.sub(comments[path.suffix], "", path.read_text(), flags=re.S)
            found += [f"{path.relative_to(ROOT)}: {m.group(0)!r}" for m in re.finditer(r"\S*[\u3040-\u30ff\u4e00-\u9faf]\S*", text)]
    assert not found, found


def test_babel_cfg_names_the_keywords_the_code_uses():
    """The pybabel command written in babel.cfg (and docs/webui.md) extracts what this test does."""
    text = (ROOT / "babel.cfg").read_text()
    flags = set(re.findall(r"-k (\S+)", text))
    def spec(name, value):
        if value is None:
            return name
        return name + ":" + ",".join(f"{v[0]}{v[1]}" if isinstance(v, tuple) else str(v) for v in value)
    assert flags == {spec(k, v) for k, v in EXTRACT_KEYWORDS.items()}
    assert " ".join(sorted(flags)) and all(f"-k {f}" in (ROOT / "docs" / "webui.md").read_text() for f in flags)


def test_no_message_hides_inside_an_f_string():
    """Babel's extractor (Python 3.11) reads an f-string as one token: ``f"{tr('choice')}"`` is never
    extracted, so its Japanese went missing unnoticed (`companion --lang ja games` said "2–5 players")."""
    hidden = []
    for folder in ("companion", "printables", "vision", "webui", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.JoinedStr):
                    continue
                for call in ast.walk(node):
                    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                            and call.func.id in EXTRACT_KEYWORDS and call.args
                            and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
                        hidden.append(f"{path.relative_to(ROOT)}:{call.lineno}: {call.args[0].value!r}")
    assert not hidden, "take these msgids out of their f-strings (a variable first):\n" + "\n".join(hidden)
