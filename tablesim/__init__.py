"""The simulated table: what a camera would see of our printed cards, and scripted games to feed it.

Outside the product path: the demo (``companion serve --demo``), the benchmarks and the tests use it;
no module of companion/, printables/, vision/ or webui/ imports it (``webui/cli.py``, the serve
command, is the one composition root that starts the demo).
"""
