"""Table Companion: rules engines, card catalogue, table sessions and the command line."""
__version__ = "0.1.0"
