"""The ``phone`` blueprint (routes.py): join by code or QR, the live game view, the rules at hand."""
