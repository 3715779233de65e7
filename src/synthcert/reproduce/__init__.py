"""synthcert.reproduce."""
