"""The rules pages (rules.py): docs/<game>.md as HTML with section anchors, and links from the game
view's prompts to the rule they cite; the ``rules`` blueprint carries their template and link helper."""
