"""The ``printing`` blueprint (routes.py): the host's page that prints the decks as PDFs."""
