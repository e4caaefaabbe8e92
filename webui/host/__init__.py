"""The ``host`` blueprint (routes.py): open a table, the host screen with its join QR and camera."""
