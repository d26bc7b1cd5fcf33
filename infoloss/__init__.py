"""infoloss: information loss and data utility of protected microdata."""

__version__ = "0.1.0"
