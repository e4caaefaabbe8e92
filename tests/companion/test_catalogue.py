"""The card catalogue: complete per the rules, unique ids and markers, payloads that round-trip."""
import pytest

from companion import catalogue
from companion.catalogue import PayloadError, all_cards, cards_of, parse


def test_counts_match_the_rules():
    assert len(cards_of("wheel", "number")) == 25 and len(cards_of("wheel", "pawn")) == 1
    assert len(cards_of("hills", "number")) == 18
    assert len(cards_of("hills", "hill")) == 7 and len(cards_of("hills", "banner")) == 2
    assert len(cards_of("spartacus", "number")) == 50 and len(cards_of("spartacus", "banner")) == 5
    assert len(cards_of("prussia", "nation")) == 14 and len(cards_of("prussia", "era")) == 4
    assert len(cards_of("prussia", "playing")) == 52 and len(cards_of("prussia", "joker")) == 2
    assert len(cards_of("chains")) == 10 * 55
    assert len(cards_of("table", "seat")) == 10 and len(cards_of("table", "calibration")) == 4


def test_every_pairs_deck_has_one_1_to_ten_10s():
    for deck in range(1, 11):
        values = sorted(c.value for c in cards_of("chains") if c.deck == deck)
        assert values == sorted(v for v in range(1, 11) for _ in range(v))


def test_ids_payloads_and_markers_are_unique():
    cards = all_cards()
    assert len({c.id for c in cards}) == len(cards)
    assert len({c.payload for c in cards}) == len(cards)
    assert len({c.marker for c in cards}) == len(cards)
    assert all(0 <= c.marker < 1000 for c in cards)  # DICT_5X5_1000


def test_payloads_fit_a_version_1_qr_code_at_level_m():
    import qrcode
    for c in all_cards():
        assert len(c.payload) <= catalogue.QR_MAX_PAYLOAD
        qr = qrcode.QRCode(version=None, error_correction=qrcode.constants.ERROR_CORRECT_M)
        qr.add_data(c.payload)
        qr.make(fit=True)
        assert qr.version == 1, c.payload


@pytest.mark.parametrize("card", all_cards(), ids=lambda c: c.id)
def test_parse_round_trips(card):
    assert parse(card.payload) == card
    assert parse(card.payload.encode()) == card
    assert catalogue.by_marker(card.marker) == card


@pytest.mark.parametrize("payload, words", [
    ("https://example.com/menu", "foreign"),
    ("TC", "truncated"),
    ("TC1:", "truncated"),
    ("TC1:W-R", "truncated"),
    ("TC1:W-R9", "names no card"),
    ("TC1:w-r5", "malformed"),
    ("TC1:" + "A" * 30, "malformed"),
    ("", "empty"),
    (b"\xff\xfe", "not ASCII"),
])
def test_bad_payloads_say_what_is_wrong(payload, words):
    with pytest.raises(PayloadError, match=words):
        parse(payload)


def test_backs_never_carry_a_card_identity():
    backs = cards_of("back")
    single = [c for c in all_cards() if c.kind not in ("back", "era")]   # era cards are double-sided
    assert {catalogue.back_of(c) for c in single} <= {b.id for b in backs}
    # all cards of one Chains deck share one back; two decks never share one
    assert len({catalogue.back_of(c) for c in cards_of("chains") if c.deck == 3}) == 1
    assert catalogue.back_of(catalogue.card("C01-5-1")) != catalogue.back_of(catalogue.card("C02-5-1"))


def test_an_era_card_shows_the_other_era_when_turned_over():
    eras = {c.id: catalogue.back_of(c) for c in cards_of("prussia", "era")}
    assert eras == {"P-ERA1": "P-ERA2", "P-ERA2": "P-ERA1", "P-ERA3": "P-ERA4", "P-ERA4": "P-ERA3"}
    assert catalogue.card("P-ERA3").face_down_group == "P-ERA4"
    # the nation cards keep their deck's back, which names only them now
    assert catalogue.back_of(catalogue.card("P-N6")) == "B-NATION"
    assert "era" not in catalogue.card("B-NATION").name


def test_foreign_marker_is_not_ours():
    assert catalogue.by_marker(999) is None
