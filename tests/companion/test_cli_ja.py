"""The command line in Japanese: a Japanese locale (or ``--lang ja``) gives Japanese messages, errors,
help and argparse's own words; any other locale gives the English."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.i18n import locale_lang, take_lang

ROOT = Path(__file__).resolve().parents[2]
JAPANESE_LOCALE = {"LANG": "ja_JP.UTF-8", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""}


def companion(*argv, **env):
    """``python -m companion ARGV`` in a fresh process with ``env`` over this one's environment."""
    return subprocess.run([sys.executable, "-m", "companion", *argv], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)


def test_the_locale_chooses_the_language():
    assert locale_lang({"LANG": "ja_JP.UTF-8"}) == "ja"
    assert locale_lang({"LANG": "ja_JP.UTF-8", "LC_ALL": "C.UTF-8"}) == "en"   # LC_ALL wins over LANG
    assert locale_lang({"LANGUAGE": "ja:en", "LANG": "C.UTF-8"}) == "ja"
    assert locale_lang({"LANG": "en_GB.UTF-8"}) == locale_lang({}) == "en"
    assert take_lang(["session", "list", "--lang", "ja"], {}) == ("ja", ["session", "list"])
    assert take_lang(["--lang=en", "games"], {"LANG": "ja_JP.UTF-8"}) == ("en", ["games"])


def test_a_japanese_locale_speaks_japanese(tmp_path):
    db = str(tmp_path / "t.db")
    done = companion("session", "new", "hills", "--names", "Ann,Ben", "--db", db, **JAPANESE_LOCALE)
    assert done.returncode == 0, done.stderr
    assert "セッション" in done.stdout and "参加コード" in done.stdout and "ローマ七丘" in done.stdout
    session_id = re.search(r"[0-9a-f]{12}", done.stdout).group(0)
    shown = companion("session", "show", session_id, "--db", db, **JAPANESE_LOCALE).stdout
    assert "最初からの経過:" in shown and "手番: Ann" in shown and "得点: " in shown
    english = companion("session", "show", session_id, "--db", db, LANG="en_US.UTF-8", LANGUAGE="").stdout
    assert "what happened, from the start:" in english and "to move: Ann" in english
    assert not any("\u3040" <= ch <= "\u30ff" for ch in english.replace("ローマ七丘", ""))


def test_errors_and_argparse_speak_japanese(tmp_path):
    done = companion("simulate", "nosuchgame", **JAPANESE_LOCALE)
    assert done.returncode == 2
    assert "使い方: " in done.stderr and "エラー: " in done.stderr and "選べません" in done.stderr
    done = companion("history", "player", "Nobody", "--db", str(tmp_path / "t.db"), **JAPANESE_LOCALE)
    assert done.returncode == 2 and "'Nobody' のプレイはありません" in done.stderr
    helped = companion("session", "new", "--help", **JAPANESE_LOCALE)
    assert helped.returncode == 0 and "位置引数" in helped.stdout and "人数(既定: 名前の数" in helped.stdout


def test_lang_flag_wins_over_the_locale(capsys, tmp_path):
    assert main(["session", "list", "--db", str(tmp_path / "t.db"), "--lang", "ja"]) == 0
    assert "まだセッションがありません" in capsys.readouterr().out
    assert main(["--lang", "en", "session", "list", "--db", str(tmp_path / "t.db")]) == 0
    assert "no sessions yet" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--lang", "fr", "games"])   # not a language of ours: argparse refuses it
    assert "invalid choice: 'fr'" in capsys.readouterr().err


def test_simulate_prints_the_engines_japanese_words(capsys):
    assert main(["--lang", "ja", "simulate", "hills", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "最終得点: " in out and "勝者: " in out and "ローマ七丘" in out
    assert "を置く" in out or "に置く" in out, out[:400]   # the moves in the engine's Japanese


def test_every_help_page_formats_in_japanese():
    """argparse %-formats help texts: a translation with a bare "%" would crash ``--help``; each page
    of every command and subcommand renders, in Japanese, with the translated words."""
    import argparse
    from companion.cli import build_parser
    from companion.i18n import set_cli_lang
    set_cli_lang("ja")
    try:
        pages, todo = [], [build_parser()]
        while todo:
            parser = todo.pop()
            pages.append(parser.format_help())
            for action in parser._actions:
                if isinstance(action, argparse._SubParsersAction):
                    todo += list(action.choices.values())
    finally:
        set_cli_lang("en")
    assert len(pages) > 25
    assert all("オプション" in page for page in pages)
    assert any("プレイの記録: list" in page for page in pages)
