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
