"""Settings every test shares."""
import os

# the command line speaks the locale's language (companion.i18n.locale_lang): the tests read its
# English unless they ask for Japanese themselves (tests/companion/test_cli_ja.py), whatever the
# machine's locale
os.environ["LANGUAGE"] = "en"


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _english_command_line():
    """Each test starts with an English command line: ``companion``'s main sets the process's CLI
    language once (as a real run does), and a test that ran ``--lang ja`` must not leave argparse
    speaking Japanese to the next test in the same worker (CI lost three tests so)."""
    yield
    from companion.i18n import cli_lang, set_cli_lang
    if cli_lang() != "en":
        set_cli_lang("en")


FIRST = ("tests/printables/", "tests/webui/", "tests/vision/", "tests/tablesim/", "tests/benchmarks/")
"""The folders whose tests run first, in this order; the many short tests (tests/companion, the
top-level files) come last. xdist's worksteal splits the list in two halves and an idle worker takes
the last half of the other's queue: with the browser tests last (pytest's own order), a long one
often ran alone at the end (one core idle 14 s in a fresh clone's run); and the printed-deck scan
(18 s, a module fixture) stays at the front of one worker's queue, where no steal splits its module."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the slow folders first (``FIRST``); a stable sort: every module keeps its own order."""
    def rank(item: pytest.Item) -> int:
        path = item.nodeid
        return next((i for i, folder in enumerate(FIRST) if path.startswith(folder)), len(FIRST))
    items.sort(key=rank)
