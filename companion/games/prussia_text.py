"""Explanations of 輪る七年戦争 resolutions: steps (from ``prussia_core``) → English and Japanese.

Each step becomes one short clause; a resolution reads as the clauses joined by arrows, e.g.
"Drew ♥6 → event nation Great Britain → all slots of Great Britain are filled → war check →
ignition: ♦6 (same rank, ♦ beats ♣) → red: follow to Netherlands → …".
"""
from __future__ import annotations

from typing import Any

from companion.games.prussia_core import CENTRE, ERA_NAMES, RESULT_NAMES, Nations, label

ARROW = " → "


class Namer:
    """Names of nations and slots for one nation table."""

    def __init__(self, nations: Nations) -> None:
        self.nations = nations

    def en(self, n: int) -> str:
        """A nation's English name."""
        return self.nations.names[n]

    def ja(self, n: int) -> str:
        """A nation's Japanese name."""
        return self.nations.ja[n]

    def between(self, ends: list[int]) -> tuple[str, str]:
        """'between A and B' in both languages."""
        a, b = ends
        return f"between {self.en(a)} and {self.en(b)}", f"{self.ja(a)}と{self.ja(b)}の間"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _side(nm: Namer, side: list, lang: str) -> str:
    """'Britain 7 + Netherlands 3 = 10' (or 'Denmark 2' with no allies)."""
    n, own, allies, total = side
    name = nm.en if lang == "en" else nm.ja
    parts = [f"{name(n)} {_num(own)}"] + [f"{name(a)} {_num(s)}" for a, s in allies]
    return " + ".join(parts) + (f" = {_num(total)}" if allies else "")


def _beats(best: str, beaten: list[str], by_suit: bool) -> tuple[str, str]:
    if not beaten:
        return "", ""
    if by_suit:
        b, others = label(best)[0], [label(c)[0] for c in beaten]
    else:
        b, others = label(best)[1:], [label(c)[1:] for c in beaten]
    return f", {b} beats {' and '.join(others)}", f"、{b}は{'・'.join(others)}より強い"


def clause(step: dict[str, Any], nm: Namer) -> tuple[str, str]:
    """One step of an explanation as (English, Japanese)."""
    kind = step["step"]
    card = label(step["card"]) if "card" in step else ""
    n = step.get("nation")
    verb = ("Drew", "を引いた") if step.get("from_pile") else ("Played", "を出した")
    if kind == "draw":
        return (f"{verb[0]} {card} → event nation {nm.en(n)}", f"{card}{verb[1]} → イベント国は{nm.ja(n)}")
    if kind == "joker":
        return (f"{verb[0]} a joker: discard it", f"ジョーカー{verb[1]}: 捨札にする")
    if kind == "gone":
        again = step["from_pile"]
        return (f"{verb[0]} {card}: {nm.en(n)} has surrendered → discard it" + (" and draw again" if again else ""),
                f"{card}{verb[1]}: {nm.ja(n)}は降伏済み → 捨札" + ("にして引き直す" if again else ""))
    if kind == "no_slot":
        return (f"{nm.en(n)} has no slot for a relation card → discard {card}",
                f"{nm.ja(n)}には関係トランプを置く場所がない → {card}は捨札")
    if kind == "full":
        return (f"all slots of {nm.en(n)} are filled → war check",
                f"{nm.ja(n)}の関係トランプはすべて埋まっている → 戦争の解決")
    if kind == "ignition":
        rule = step["rule"]
        en_b, ja_b = _beats(step["card"], step["beaten"], rule != "suit")
        reason = {"rank": ("same rank", "同じ数字"), "suit": ("same suit", "同じスート"),
                  "strongest": ("strongest rank", "最も強い数字")}[rule]
        return (f"ignition: {card} ({reason[0]}{en_b}, {nm.en(step['nation'])}–{nm.en(step['other'])})",
                f"発火トランプ: {card}（{reason[1]}{ja_b}、{nm.ja(step['nation'])}–{nm.ja(step['other'])}）")
    if kind == "follow":
        return (f"red: follow to {nm.en(n)}", f"赤: {nm.ja(n)}へ辿る")
    if kind == "dead_end":
        return (f"{nm.en(n)} has no other relation card → no war",
                f"{nm.ja(n)}には他の関係トランプがない → 戦争なし")
    if kind == "war":
        a, b = step["sides"]
        era = ERA_NAMES[step["era"]]
        return (f"black: war {nm.en(step['a'])} vs {nm.en(step['b'])} (era {era}) → "
                f"{_side(nm, a, 'en')} vs {_side(nm, b, 'en')}",
                f"黒: {nm.ja(step['a'])}と{nm.ja(step['b'])}の戦争（時代{era}）→ "
                f"{_side(nm, a, 'ja')} 対 {_side(nm, b, 'ja')}")
    if kind == "tie":
        return ("tie: nobody surrenders", "同点: 降伏なし")
    if kind == "exchange":
        old = label(step["old"])
        en_w, ja_w = nm.between(step["ends"])
        return (f"put {card} in place of {old} ({en_w}) and discard {old}",
                f"{card}を{old}の場所（{ja_w}）に置き、{old}は捨札")
    if kind == "surrender":
        return surrender_instruction(step, nm)
    if kind == "discard_drawn":
        return (f"discard {card}", f"{card}は捨札")
    if kind == "great_victory":
        return ("every clock nation has surrendered → great victory", "他国がすべて降伏 → 大勝利")
    if kind == "place":
        en_w, ja_w = nm.between(step["ends"])
        return (f"{card} placed {en_w}", f"{card}を{ja_w}に置いた")
    if kind == "joker_discard":
        en_w, ja_w = nm.between(step["ends"])
        return (f"discard relation card {card} ({en_w})", f"関係トランプ{card}（{ja_w}）を捨札にする")
    if kind == "era":
        era = ERA_NAMES[step["era"]]
        return (f"K number {step['kings']} → era {era} begins: show era card {era}",
                f"{step['kings']}枚目のK → 時代{era}へ: 時代カード{era}を表にする")
    if kind == "score":
        own, allies, mine = step["centre"]
        c_en = _side(nm, [CENTRE, own, allies, mine], "en")
        c_ja = _side(nm, [CENTRE, own, allies, mine], "ja")
        o_en = " + ".join(f"{nm.en(x)} {_num(s)}" for x, s in step["others"]) or "nobody"
        o_ja = " + ".join(f"{nm.ja(x)} {_num(s)}" for x, s in step["others"]) or "なし"
        res = RESULT_NAMES[step["result"]]
        sign = "≥" if step["result"] == "victory" else "<"
        return (f"4th K → the end: {c_en} {sign} others {o_en} = {_num(step['total'])} → {res[0]}",
                f"4枚目のK → 終了: {c_ja} {sign} 他国 {o_ja} = {_num(step['total'])} → {res[1]}")
    raise ValueError(f"unknown step {kind!r}")


def surrender_instruction(step: dict[str, Any], nm: Namer) -> tuple[str, str]:
    """What the players do by hand when a nation surrenders."""
    x = step["nation"]
    if x == CENTRE:
        return (f"{nm.en(x)} surrenders → defeat", f"{nm.ja(x)}が降伏 → 敗北")
    cards = ", ".join(label(c) for c in step["cards"])
    en = f"{nm.en(x)} surrenders: remove it and its relation cards" + (f" ({cards})" if cards else "")
    ja = f"{nm.ja(x)}が降伏: 国カードとその関係トランプ" + (f"（{cards}）" if cards else "") + "を取り除く"
    if step.get("moves"):
        r, p = step["moves"]
        en += f"; {nm.en(r)} moves to {p}"
        ja += f"。{nm.ja(r)}を{p}の位置へ移す"
    elif step.get("position"):
        en += f"; position {step['position']} stays empty"
        ja += f"。{step['position']}の位置は空席"
    return en, ja


def render(steps: list[dict[str, Any]], nm: Namer, prefix: tuple[str, str] = ("", "")) -> tuple[str, str]:
    """A whole explanation: the clauses joined by arrows."""
    en, ja = zip(*(clause(s, nm) for s in steps)) if steps else ((), ())
    return prefix[0] + ARROW.join(en), prefix[1] + ARROW.join(ja)

