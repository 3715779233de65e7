"""``python -m synthcert``."""

from synthcert.cli import main

main()
