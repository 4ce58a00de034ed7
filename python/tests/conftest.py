"""Shared settings of the package's tests."""

import pytest

import tabletop

#: Options making each game's random games short enough for many of them (the defaults
#: otherwise); every game of the registry is covered.
QUICK_OPTIONS = {"gomoku": {"size": 9}}


@pytest.fixture(params=tabletop.GAMES)
def game_name(request):
    """Each game of the registry in turn."""
    return request.param
