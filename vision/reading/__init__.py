"""Stage 2, the reading: what lies in one frame. The cards' corner markers are found (``markers``),
each card's identity and pose on the table come from them with the QR code as a check (``detect``),
and a sighting that is not paper lying flat on the table (a phone's screen, a card held up, a card
outside the play area) is told apart and set aside (``plane``)."""
