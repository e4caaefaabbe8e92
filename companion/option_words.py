"""Each game option in a player's words, English and Japanese (the engines' ``Option.help`` is written
for developers): the host's form, the History pages and ``companion --lang ja games`` say the same."""
from __future__ import annotations

from companion.i18n import CATALOGUE, N_

t = CATALOGUE.t


OPTIONS: dict[tuple[str, str], tuple[str, str]] = {
    # (game, option): its name and what it does, in a player's words (translated on use)
    ('wheel', 'start_player'): (N_("First player"),
        N_("the seat that takes the first card")),
    ('wheel', 'single_card_fall'): (N_("Single card fall"),
        N_("once per game a player may discard the card they just took")),
    ('wheel', 'colour_and_value'): (N_("Colour and value"),
        N_("a completed value scores inverted worth (1→5 … 5→1); the game ends once a colour and a value "
           "have scored")),
    ('hills', 'start_player'): (N_("First player"),
        N_("who starts (red or blue); equal hills go to this player")),
    ('hills', 'same_value_ban'): (N_("Same value banned"),
        N_("you may not add a value your opponent already has at that hill (on a face-down hill, found when "
           "it is turned up)")),
    ('hills', 'banners'): (N_("Banners"),
        N_("each player also gets a banner (value 0) that cancels the next card placed at its hill")),
    ('hills', 'highest_card'): (N_("Highest card"),
        N_("the single highest card wins a hill, not the sum")),
    ('hills', 'open_play'): (N_("Open play"),
        N_("hands lie open and every card is placed face up")),
    ('hills', 'hidden_values'): (N_("Camera reads face-down cards later"),
        N_("cards laid face down are recorded as unknown and read when their hill is turned up (what a "
           "camera sees; set for you when a camera watches)")),
    ('spartacus', 'start_player'): (N_("First player"),
        N_("the seat that leads the first trick; a series moves it on")),
    ('spartacus', 'joker'): (N_("Banner as joker"),
        N_("the banner beats the card before it and the last card played wins the trick; jokers score 0, no "
           "doubling")),
    ('spartacus', 'joker_penalty'): (N_("Joker penalty"),
        N_("−10 for each joker in a player's won tricks or hand at the end")),
    ('spartacus', 'joker_spoils_trick'): (N_("Joker spoils the trick"),
        N_("a won trick holding a joker is worth 0")),
    ('spartacus', 'no_banners'): (N_("No banners"),
        N_("play without the banner cards: 10 cards each, no doubling")),
    ('prussia', 'start_player'): (N_("First player"),
        N_("the seat that moves first (2 players: the seat playing Prussia's side)")),
    ('prussia', 'jokers'): (N_("Jokers"),
        N_("jokers in the deck")),
    ('prussia', 'centre'): (N_("Centre nation"),
        N_("the nation in the centre (the German Empire is easier)")),
    ('prussia', 'alliance'): (N_("Alliances"),
        N_("allies in a war: joined by one red card, or by a chain of red cards not through the enemy")),
    ('prussia', 'victory_strength'): (N_("Strength at the end"),
        N_("at the end the centre nation counts with its red alliance, or alone")),
    ('prussia', 'nations'): (N_("Nations table"),
        N_("a nations file of your own (default: this edition's table)")),
    ('chains', 'start_player'): (N_("First player"),
        N_("the seat that plays first")),
    ('chains', 'ten_not_first'): (N_("10 not first"),
        N_("the terminal 10 may be taken only after one of 1–9 (automatic: on with several players, off "
           "alone)")),
    ('chains', 'misfit'): (N_("A card that does not fit"),
        N_("when a card turned over into the work area does not fit: the whole work area is ruined, or only "
           "that card goes")),
}
"""Each game option in a player's words (the engines' ``Option.help`` is written for developers)."""

CHOICES: dict[tuple[str, str], dict[str, str]] = {
    ('hills', 'start_player'): {'0': N_("red"), '1': N_("blue")},
    ('prussia', 'centre'): {'prussia': N_("Prussia"), 'german_empire': N_("German Empire")},
    ('prussia', 'alliance'): {'direct': N_("one red card (direct)"), 'chain': N_("a chain of red cards")},
    ('prussia', 'victory_strength'): {'alliance': N_("with its alliance"), 'alone': N_("alone")},
    ('chains', 'ten_not_first'): {'auto': N_("automatic"), 'on': N_("on"), 'off': N_("off")},
    ('chains', 'misfit'): {'ruin': N_("the work area is ruined"), 'card_only': N_("only that card goes")},
}
"""Option values in words; a value not listed reads as itself (a number)."""


def option_words(game: str, name: str, lang: str, fallback: str = "") -> tuple[str, str]:
    """An option's name and description in ``lang`` (the identifier and the engine's help if no
    words were written for it)."""
    words = OPTIONS.get((game, name))
    if words is None:
        return name, fallback
    return t(words[0], lang), t(words[1], lang)


def choice_words(game: str, name: str, value: object, lang: str) -> str:
    """One value of an option in ``lang``."""
    words = CHOICES.get((game, name), {}).get(str(value))
    return str(value) if words is None else t(words, lang)
