"""The public API re-exported from ``synthcert``."""

from __future__ import annotations

import pytest

import synthcert


@pytest.mark.parametrize("name", synthcert.__all__)
def test_every_public_name_resolves(name):
    assert getattr(synthcert, name) is not None


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        synthcert.nope  # noqa: B018
