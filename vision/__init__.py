"""The table read through a camera, in three stages a reader follows in order (frame -> reading -> table).

- ``vision.frame``   what a frame is and whether it is usable: ``sources`` (webcam, video, folder of
  images, a phone's pushed frames), ``quality`` (sharpness, glare, exposure, shaking), ``deblur``
  (undo a motion smear), ``pyramid`` (4K frames searched at half size).
- ``vision.reading`` what lies in one frame: ``markers`` (the fast DICT_5X5_1000 marker finder),
  ``detect`` (card identity and pose from markers, the QR code as a check), ``plane`` (a screen, a
  card held up or lying off the table told from paper on the table).
- ``vision.table``   what the table holds: ``calibrate`` (image pixels to table millimetres from the
  K-CAL markers), ``layouts`` (each game's table plan, one module per game: placing cards and reading
  them back into an engine observation), ``track`` (steady tracks through hands and misses),
  ``scene`` (the ``TableScene`` contract), ``camera_check`` (the camera set-up check).
- ``vision.pipeline`` runs the three stages on every frame (``Pipeline``); ``vision.cli`` is
  ``companion watch``.

Imports go downwards only (companion, printables); the synthetic table lives in ``tablesim`` and the
benchmarks in ``benchmarks``, outside the product path.
"""
