"""synthcert.privacy."""
