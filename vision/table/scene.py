"""What the camera saw, in table millimetres: the contract between detection and table layouts.

``vision-detect`` (pipeline) produces ``TableScene``; ``vision.table.layouts`` reads it into an engine-shaped
observation. Coordinates are table millimetres: x to the right, y away from the camera-side edge
(K-CAL1 at (0, 0)); see VISION_API.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SeenCard:
    """One card (face or back) the camera identified, with its pose on the table."""

    card_id: str                    # catalogue id (a face) or a back id "B-..." (face-down card)
    face_up: bool                   # False when only a back (deck marker) was seen
    centre: tuple[float, float]     # table mm
    angle: float                    # degrees, the card's up direction on the table
    corners: tuple[tuple[float, float], ...] = ()   # TL, TR, BR, BL of the card in table mm
    visible: float = 1.0            # share of the card's area estimated visible (1.0 = whole card)
    track: int = 0                  # stable track id across frames
    source: str = "marker"          # "marker", "qr", "marker+qr", "tracked"


@dataclass(frozen=True)
class TableScene:
    """Every card seen in one (stable) frame, with the seat tokens."""

    cards: tuple[SeenCard, ...]
    seats: dict[int, tuple[float, float]] = field(default_factory=dict)  # seat (0-based) -> mm
    stable: bool = True             # no motion for the stability window
    conflicts: tuple[str, ...] = () # e.g. two copies of one card id in view
    frame_index: int = 0
