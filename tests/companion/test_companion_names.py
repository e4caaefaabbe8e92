"""The names the app gives a companion seat, read back by parsing them (issue 22, session 9 qa): the
reader used to generate every candidate name (3 levels × 2 languages × 6 numbers) and compare."""
from __future__ import annotations

from companion.session.autoplay import (app_name, companion_label, companion_name, companion_name_number,
                                        companion_of_label, name_in)


def test_an_app_given_name_is_read_in_either_language_at_any_seat_number():
    assert companion_name_number("Companion (good)") is None
    assert companion_name_number("Companion 2 (good)") == 2
    assert companion_name_number("コンパニオン3(上級)") == 3
    assert companion_name_number("Companion 2 (good)", "good") == 2
    assert companion_name_number("Companion 2 (good)", "strong") is False
    # a ten-player Chains table may hold seven companions at one level: the old reader stopped at 5
    assert companion_name_number("Companion 7 (beginner)") == 7 and app_name("コンパニオン10(初級)") == ("beginner", 10)
    for other in ("Robo", "Companion", "Companion (great)", "Companion 0 (good)", "Companion (good) ",
                  "Companion 2(good)", "Ann (companion, good)", "コンパニオン(good)"):
        assert companion_name_number(other) is False and app_name(other) is None, other


def test_a_stored_name_is_said_in_the_readers_language():
    assert name_in("Companion 2 (good)", "ja") == "コンパニオン2(中級)"
    assert name_in("コンパニオン(上級)", "en") == "Companion (strong)"
    assert name_in("Robo", "ja") == "Robo"
    for level in ("beginner", "good", "strong"):
        for lang in ("en", "ja"):
            for number in (None, 1, 6):
                name = companion_name(level, lang, number)
                assert app_name(name) == (level, number) and name_in(name, lang) == name


def test_a_companion_label_reads_back():
    assert companion_of_label("Companion (good)") == ("good", "Companion (good)")
    assert companion_of_label(companion_label("Robo", "strong", "en")) == ("strong", "Robo")
    assert companion_of_label(companion_label("ロボ太", "beginner", "ja")) == ("beginner", "ロボ太")
    assert companion_of_label("Ann") is None and companion_of_label(" (companion, good)") is None
