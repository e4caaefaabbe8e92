"""Settings every test shares."""
import os

# the command line speaks the locale's language (companion.i18n.locale_lang): the tests read its
# English unless they ask for Japanese themselves (tests/companion/test_cli_ja.py), whatever the
# machine's locale
os.environ["LANGUAGE"] = "en"
