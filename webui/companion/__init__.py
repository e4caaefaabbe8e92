"""The ``companion`` blueprint (routes.py): seats given to the companion, and the tap that plays its
move (issue 22)."""
