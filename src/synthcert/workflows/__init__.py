"""Workflows: release, synthesize, evaluate and audit, and the one writer of their artefacts."""
