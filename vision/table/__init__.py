"""Stage 3, the table: frames' readings turned into what the table holds. The K-CAL markers map image
pixels to table millimetres (``calibrate``), cards are tracked steadily through hands and misses
(``track``) into a ``TableScene`` (``scene``), each game's table plan reads the scene back into an
engine observation (``layouts``, one module per game), and the set-up check says whether the camera,
where it stands, can read cards everywhere on the table (``camera_check``)."""
